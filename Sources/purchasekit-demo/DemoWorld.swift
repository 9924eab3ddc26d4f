#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// One run of the demo app on a saved story: the simulated store and server,
/// the app's journal order store, a manual clock, and the engine over them.
struct DemoWorld: Sendable {
    let paths: DemoPaths
    let terminal: Terminal
    let clock: ManualClock
    let store: SimulatedPaymentQueue
    let queue: PersistentPaymentQueue
    let server: SimulatedReceiptServer
    let backend: Backend
    let orderStore: JournalOrderStore
    let engine: PurchaseEngine
    let timeline: Timeline
    let printer: TimelinePrinter
    let products: [StoreProduct]

    /// The exit status of a simulated crash.
    static let crashExitCode: Int32 = 3

    /// Opens (or starts) the story in `paths`. The engine is made but not started.
    ///
    /// - Parameters:
    ///   - configPath: A `.storekit` file for a new story; for an existing one it must sell the same products.
    ///   - crashAfter: End the process right after an order with this status is saved.
    static func open(_ paths: DemoPaths, configPath: String? = nil, crashAfter: OrderStatus? = nil,
                     terminal: Terminal = .current) async throws -> DemoWorld {
        try paths.prepare()
        let given = try configPath.map { path throws(PurchaseKitError) in
            try StoreKitConfiguration(contentsOf: URL(fileURLWithPath: path))
        }
        var fresh: StoreKitConfiguration?
        if !FileManager.default.fileExists(atPath: paths.storeFile.path) {
            fresh = try given ?? .sample()
        }
        let backend = try Backend(url: paths.backendFile, fresh: BackendState(
            now: ManualClock.defaultStart, timeRateFactor: fresh?.settings.timeRate.factor ?? 1))
        let clock = ManualClock(start: await backend.state.now)

        let store: SimulatedPaymentQueue
        if let fresh {
            store = SimulatedPaymentQueue(configuration: fresh, clock: clock, seed: 1)
            try await store.saveState(to: paths.storeFile)
        } else {
            store = try SimulatedPaymentQueue.load(from: paths.storeFile, clock: clock, seed: 1)
            if let given, await store.catalogProducts() != given.products {
                throw DemoError(message: "This story was started with other products than '\(configPath ?? "")'. "
                    + "Use a new --state-dir to try another configuration.")
            }
        }
        let queue = PersistentPaymentQueue(base: store, file: paths.storeFile)
        let server = SimulatedReceiptServer(clock: clock, seed: 1, store: store)
        // A folder of an earlier version, written by FileOrderStore, is imported at the first launch.
        let orderStore = DemoKillSwitch.isArmed
            ? try JournalOrderStore(directory: paths.ordersDirectory, fileSystem: DyingFileSystem(), configuration: .init(clock: clock))
            : try JournalOrderStore(directory: paths.ordersDirectory, configuration: .init(clock: clock))

        let crashContext = Locked<(Timeline, TimelinePrinter)?>(nil)
        var ordersForEngine: any OrderStore = orderStore
        if let crashAfter {
            ordersForEngine = CrashingOrderStore(base: orderStore, status: crashAfter) { order in
                if let (timeline, printer) = crashContext.withLock({ $0 }) {
                    printer.print(await timeline.take())
                }
                // The journal acknowledges `created` and `completed` before their flush (a launch makes
                // their loss good); flush so that the order is as durable as the line below says.
                try? await orderStore.flush()
                terminal.line("💥 Simulated crash: order \(order.id) is now durably '\(order.status.rawValue)'; "
                    + "the process ends here without any clean-up. Run `resume` to see the recovery.")
                Terminal.flush()
                _exit(DemoWorld.crashExitCode)
            }
        }
        var configuration = PurchaseEngine.Configuration(
            paymentQueue: queue, receiptVerifier: LedgerVerifier(server: server, backend: backend),
            orderStore: ordersForEngine, orderGenerator: BackendOrderGenerator(backend: backend), clock: clock,
            limits: .init(storeTimeout: nil, verificationTimeout: nil))
        configuration.jitterSeed = 1 // the story on the manual clock tells the same retry times every run
        let engine = try PurchaseEngine(configuration: configuration)
        let products = await store.catalogProducts()
        let timeline = await Timeline(engine: engine)
        let printer = TimelinePrinter(terminal: terminal,
                                      names: Dictionary(products.map { ($0.id, $0.displayName) }, uniquingKeysWith: { a, _ in a }))
        crashContext.withLock { $0 = (timeline, printer) }
        return DemoWorld(paths: paths, terminal: terminal, clock: clock, store: store, queue: queue, server: server,
                         backend: backend, orderStore: orderStore, engine: engine, timeline: timeline,
                         printer: printer, products: products)
    }

    /// Starts the engine as an app does at launch: it loads the saved orders,
    /// attaches to the store (which replays unfinished transactions) and recovers.
    /// Prints what recovery did.
    ///
    /// The engine's current user is `user`, or the one logged in at the last
    /// run. It matters beyond purchases: the engine credits purchases made
    /// outside the app (no order token) to the current user, and flags them
    /// `needsAttention` when nobody is logged in.
    func start(user: String? = nil) async throws {
        var current = user
        if let user { try await backend.setCurrentUser(user) } else { current = await backend.state.currentUser }
        await engine.setCurrentUser(current)
        let report = try await engine.start()
        for problem in report.problems {
            terminal.line(terminal.paint("A saved order could not be read and was set aside: \(problem.message)", .red))
        }
        await engine.waitUntilIdle()
        let recovered = await timeline.take()
        if !recovered.isEmpty {
            terminal.line(terminal.paint("At launch, the engine recovered what an earlier run left:", .bold))
            printer.print(recovered)
        }
    }

    /// Waits until the engine has nothing left to do now, then prints the timeline so far.
    func settle() async {
        await engine.waitUntilIdle()
        printer.print(await timeline.take())
    }

    /// Moves the clock (and saves it: time outside the app does not roll back).
    func advanceClock(to date: Date) async throws {
        clock.advance(to: date)
        try await backend.setNow(clock.now)
    }

    /// The product with this id, or a failure naming the known ones.
    func product(_ id: String) throws -> StoreProduct {
        guard let product = products.first(where: { $0.id == id }) else {
            throw DemoError(message: "The store sells no product '\(id)'. Known products: "
                + products.map(\.id).joined(separator: ", ") + ".")
        }
        return product
    }

    /// Finishes the run: waits for the engine, prints the timeline, makes the
    /// order journal durable (as an app does when it goes to the background),
    /// saves the store and the clock, and reports a failure to save.
    func close() async throws {
        await settle()
        try await orderStore.flush()
        await queue.save()
        try await backend.setNow(clock.now)
        if let failure = queue.saveFailure { throw failure }
    }

    /// Every order of the story: the open ones (also those of no user yet) and
    /// the archived ones of every user the backend knows. The engine has no
    /// "all orders" query, so the demo lists per user.
    func allOrders() async throws -> [Order] {
        var byID: [String: Order] = [:]
        for order in try await orderStore.loadOpenOrders().orders { byID[order.id] = order }
        for user in await backend.state.users {
            for order in try await orderStore.orders(forUser: user) { byID[order.id] = order }
        }
        return byID.values.sorted(by: Order.creationOrder)
    }
}
