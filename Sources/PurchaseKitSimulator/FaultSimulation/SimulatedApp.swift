import Foundation
@_spi(Testing) import PurchaseKit

/// One launch of the app: an engine whose every outside call goes through a
/// ``ProcessKill``.
final class SimulatedApp: Sendable {
    let index: Int
    let engine: PurchaseEngine
    let kill: ProcessKill
    /// The payments this process handed to the store and has no outcome of yet.
    let flights: PaymentFlights
    /// Why the device's order store did not open at launch, if it did not.
    let openingProblem: String?
    private let starter: any TaskStarter

    /// The retry schedule of the simulation: no jitter, so that the time of
    /// every retry depends on the run alone, not on which order drew first.
    static let retryPolicy = RetryPolicy(initialDelay: 10, multiplier: 2, maximumDelay: 600, jitter: 0,
                                         attemptBudget: 4, needsAttentionInterval: 3600)

    /// How long a purchase call waits for the store.
    static let storeTimeout: TimeInterval = 600

    private init(index: Int, engine: PurchaseEngine, kill: ProcessKill, flights: PaymentFlights, openingProblem: String?,
                 starter: any TaskStarter) {
        self.index = index
        self.engine = engine
        self.kill = kill
        self.flights = flights
        self.openingProblem = openingProblem
        self.starter = starter
    }

    /// Launches the app on `world` for `user`, dying at `point` if given, and
    /// waits until the launch recovery has settled.
    static func launch(_ world: SimulationWorld, index: Int, user: String?, dyingAt point: ProcessKill.Point? = nil) async -> SimulatedApp {
        let store = world.store
        let kill = ProcessKill(at: point) { await store.detach() }
        let flights = PaymentFlights()
        let device = world.device
        let orders: any OrderStore
        var openingProblem: String?
        do {
            orders = try device.openStore()
        } catch {
            // The disk is up: opening fails only if the store is broken.
            openingProblem = "the order store did not open: \(error)"
            orders = InMemoryOrderStore()
        }
        var configuration = PurchaseEngine.Configuration(
            paymentQueue: ProcessPaymentQueue(world: world, kill: kill, flights: flights),
            receiptVerifier: ProcessVerifier(world: world, kill: kill),
            orderStore: ProcessOrderStore(world: world, kill: kill, base: orders, disk: device.disk),
            orderGenerator: ProcessOrderGenerator(world: world, kill: kill),
            clock: world.clock,
            logHandler: world.log,
            policies: .init(retryPolicy: retryPolicy,
                            finishPolicy: world.profile.manualFinish ? .manual : .afterDelivery,
                            duplicatePurchasePolicy: world.profile.waitsForDuplicates ? .wait : .reject),
            limits: .init(maximumConcurrentPurchases: 64, storeTimeout: storeTimeout, verificationTimeout: 20))
        configuration.jitterSeed = world.seed &+ UInt64(index)
        configuration.taskStarter = world.starter
        configuration.executor = world.executor
        configuration.orderTokenSeed = world.seed &* 0x9E37_79B9 &+ UInt64(index)
        // The configuration is built from valid constants.
        let engine = try! PurchaseEngine(configuration: configuration)
        await engine.setCurrentUser(user)
        let app = SimulatedApp(index: index, engine: engine, kill: kill, flights: flights, openingProblem: openingProblem,
                               starter: world.starter)
        _ = try? await engine.start()
        await app.settle()
        return app
    }

    /// Waits until the engine has nothing to do now, every task it resumed
    /// (a purchase call answered) has run, and, if the process died, until it
    /// is gone.
    func settle() async {
        await engine.waitUntilIdle()
        await (starter as? any SimulationTaskStarter)?.runReadyJobs()
        if kill.isDead { await kill.waitUntilGone() }
    }
}
