import Foundation
import PurchaseKit

/// Everything that outlives an app process in one run: the store account, the
/// verification server and its ledger, the order store on "disk", the clock,
/// the log, and the fault plan.
final class SimulationWorld: Sendable {
    static let coins = "sim.coins", pro = "sim.pro", monthly = "sim.plus.monthly", season = "sim.season"
    /// The other tiers of the `plus` group: a higher level by the month (an
    /// upgrade from `monthly`, at once), and `monthly`'s level by the year (a
    /// crossgrade to another duration, at the renewal date).
    static let premium = "sim.plus.premium", yearly = "sim.plus.yearly"
    /// The subscriptions of the `plus` group, one of which an account holds at a time.
    static let plusGroup = [monthly, premium, yearly], plusGroupID = "plus"

    /// What a purchase draws from: one product of each type (a subscription
    /// is then one of the group's tiers).
    static let oneOfEachType = [coins, pro, monthly, season]

    /// One product of each type, and three tiers of one subscription group.
    static let products: [StoreProduct] = [
        StoreProduct(id: coins, type: .consumable, displayName: "Coins", price: 0.99),
        StoreProduct(id: pro, type: .nonConsumable, displayName: "Pro", price: 4.99),
        StoreProduct(id: monthly, type: .autoRenewable, displayName: "Plus", price: 2.99,
                subscription: SubscriptionInfo(groupID: plusGroupID, period: monthlyPeriod, groupLevel: 2)),
        StoreProduct(id: season, type: .nonRenewable, displayName: "Season", price: 9.99),
        StoreProduct(id: premium, type: .autoRenewable, displayName: "Plus Premium", price: 5.99,
                subscription: SubscriptionInfo(groupID: plusGroupID, period: monthlyPeriod, groupLevel: 1)),
        StoreProduct(id: yearly, type: .autoRenewable, displayName: "Plus, yearly", price: 29.99,
                subscription: SubscriptionInfo(groupID: plusGroupID, period: yearlyPeriod, groupLevel: 2)),
    ]

    // Literal periods cannot be invalid.
    private static let monthlyPeriod = try! SubscriptionPeriod(value: 1, unit: .month)
    private static let yearlyPeriod = try! SubscriptionPeriod(value: 1, unit: .year)

    let seed: UInt64
    let clock = ManualClock()
    let store: SimulatedPaymentQueue
    let server: SimulatedReceiptServer
    /// The device and its orders: a new device (a reinstall) starts empty.
    private let currentDevice: Locked<SimulatedDevice>
    var device: SimulatedDevice { currentDevice.withLock { $0 } }
    /// The app's policies for this run, drawn from the seed.
    let profile: Profile
    let log = RecordingLogHandler(minimumLevel: .trace)
    let plan: FaultPlan
    let sabotage: FaultSimulation.Sabotage
    /// Starts every task of the run on the run's own executor.
    let starter: any TaskStarter
    /// The serial executor of the run's thread, for the world's actors; nil
    /// where the platform has no task executors.
    let executor: UnownedSerialExecutor?

    /// What the store does with the next payment (set by the driver, taken by `add`).
    let nextScript = Locked<PurchaseScript?>(nil)
    /// Opened when the current purchase's payment reached the store.
    let addLatch = Locked<Latch?>(nil)
    /// Every order token handed to the store.
    let paymentTokens = Locked<[String]>([])
    private let orderCounter = Locked(0)

    /// The app's choices that a run varies: finishing by hand, waiting
    /// duplicate purchases, keeping orders in a ``JournalOrderStore`` on a
    /// disk that loses what a power loss loses, whether the store gives a
    /// billing grace period, and whether the order store saves an order that
    /// comes to rest straight into the archive.
    struct Profile: Sendable {
        var manualFinish = false
        var waitsForDuplicates = false
        var durableStore = false
        var gracePeriod = false
        /// The order store saves an order that comes to rest straight into
        /// the archive (one call); otherwise the engine saves it, then archives it.
        var savesIntoArchive = false

        static func draw(using random: inout SeededRandomNumberGenerator) -> Profile {
            let waits = Double.random(in: 0..<1, using: &random) < 0.3
            return Profile(manualFinish: Double.random(in: 0..<1, using: &random) < 0.2,
                           waitsForDuplicates: waits,
                           durableStore: Double.random(in: 0..<1, using: &random) < 0.15,
                           gracePeriod: Bool.random(using: &random),
                           savesIntoArchive: Bool.random(using: &random))
        }
    }

    init(seed: UInt64, rates: FaultPlan.Rates, profile: Profile, sabotage: FaultSimulation.Sabotage, starter: any TaskStarter) {
        self.seed = seed
        self.profile = profile
        self.starter = starter
        self.plan = FaultPlan(seed: seed, rates: rates)
        self.sabotage = sabotage
        currentDevice = Locked(SimulatedDevice(durable: profile.durableStore, brokenDisk: sabotage == .diskIgnoresFlushes, clock: clock, log: log))
        let signer = ReceiptSigner()
        var settings = StoreKitConfiguration.Settings()
        settings.billingGracePeriodEnabled = profile.gracePeriod
        // On the run's own thread, the store and the server share its executor
        // with the engine, so that their calls to each other switch nothing.
        executor = FaultSimulation.serialExecutor(of: starter)
        store = SimulatedPaymentQueue(products: Self.products, settings: settings, clock: clock, seed: seed,
                                      environment: .sandbox, signer: signer, restoring: nil, executor: executor)
        server = SimulatedReceiptServer(environment: .sandbox, signer: signer, clock: clock, seed: seed,
                                        fallsBackToOtherEnvironment: false, store: store, executor: executor)
    }

    /// The next order id: unique across processes, like a server's.
    func makeOrderID() -> String {
        "order-\(orderCounter.withLock { $0 += 1; return $0 })"
    }

    /// A new device: the app's saved orders are gone (the store account and
    /// the server's ledger are not).
    func replaceDevice() {
        currentDevice.withLock { $0 = SimulatedDevice(durable: profile.durableStore, brokenDisk: sabotage == .diskIgnoresFlushes, clock: clock, log: log) }
    }

    /// Every order on the device, open and archived, oldest first.
    func allOrders() async -> [Order] {
        await device.allOrders()
    }
}

/// A one-shot gate: `wait()` returns once `open()` was called.
final class Latch: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Whether `open()` was called.
    var isOpen: Bool { state.withLock { $0.open } }

    func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { s -> Bool in
                if !s.open { s.waiters.append(continuation) }
                return s.open
            }
            if isOpen { continuation.resume() }
        }
    }
}
