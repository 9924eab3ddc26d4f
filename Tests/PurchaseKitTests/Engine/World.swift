import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// One simulated world: a store account selling a catalog, a verification
/// server, an order store and a clock, that outlive any engine made on them
/// (a relaunch is a new engine on the same world).
struct World {
    /// What the world's engine configurations start from.
    enum EngineDefaults {
        /// The test kit's: a quick retry policy (10 s, doubling, four
        /// attempts), four purchases at once, no store or verifier timeout, and
        /// the world's log.
        case testKit
        /// The engine's own defaults, as an app gets them.
        case library
    }

    let clock = ManualClock()
    let store: SimulatedPaymentQueue
    let server: SimulatedReceiptServer
    let orders: InMemoryOrderStore
    let log = RecordingLogHandler()
    /// The products the store sells.
    let products: [StoreProduct]
    let engineDefaults: EngineDefaults

    /// `settings`: the store's (a fast time rate, billing issues...); `seed`:
    /// the store's and the server's randomness.
    init(seed: UInt64 = 1, products: [StoreProduct] = Catalog.products, settings: StoreKitConfiguration.Settings = .init(),
         orders: InMemoryOrderStore = InMemoryOrderStore(), engineDefaults: EngineDefaults = .testKit) {
        let signer = ReceiptSigner()
        self.products = products
        store = SimulatedPaymentQueue(products: products, settings: settings, clock: clock, seed: seed, signer: signer)
        server = SimulatedReceiptServer(signer: signer, clock: clock, seed: seed, store: store)
        self.orders = orders
        self.engineDefaults = engineDefaults
    }

    /// A world selling what a StoreKit configuration file describes, with its settings.
    init(seed: UInt64, storeKit configuration: StoreKitConfiguration, engineDefaults: EngineDefaults = .testKit) {
        self.init(seed: seed, products: configuration.products, settings: configuration.settings, engineDefaults: engineDefaults)
    }

    /// The subscription tiers (``Catalog/Tiers``) on a store whose day passes
    /// in one clock second, or in real time, for engines with the library's defaults.
    static func tiers(fast: Bool = true) -> World {
        World(seed: 5, products: Catalog.Tiers.products, settings: fast ? .init(timeRate: .init(xcodeRawValue: 6)) : .init(),
              engineDefaults: .library)
    }

    /// An engine configuration on this world, from its ``EngineDefaults``:
    /// each argument given replaces the default. Order ids count up
    /// (`order-1`, `order-2`...) unless `generator` says otherwise.
    func configuration(
        store orderStore: (any OrderStore)? = nil,
        queue: (any PaymentQueue)? = nil,
        verifier: (any ReceiptVerifier)? = nil,
        generator: any OrderGenerator = CountingOrderGenerator(),
        retry: RetryPolicy? = nil,
        duplicates: PurchaseEngine.DuplicatePurchasePolicy? = nil,
        storeTimeout: TimeInterval? = nil,
        verificationTimeout: TimeInterval? = nil
    ) -> PurchaseEngine.Configuration {
        var configuration = PurchaseEngine.Configuration(
            paymentQueue: queue ?? store, receiptVerifier: verifier ?? server, orderStore: orderStore ?? orders,
            orderGenerator: generator, clock: clock)
        if engineDefaults == .testKit {
            configuration.logHandler = log
            configuration.policies.retryPolicy = RetryPolicy(initialDelay: 10, multiplier: 2, maximumDelay: 600, jitter: 0.1,
                                                             attemptBudget: 4, needsAttentionInterval: 3600)
            configuration.limits = .init(maximumConcurrentPurchases: 4, storeTimeout: nil, verificationTimeout: nil)
        }
        if let retry { configuration.policies.retryPolicy = retry }
        if let duplicates { configuration.policies.duplicatePurchasePolicy = duplicates }
        if let storeTimeout { configuration.limits.storeTimeout = storeTimeout }
        if let verificationTimeout { configuration.limits.verificationTimeout = verificationTimeout }
        return configuration
    }

    /// A started engine on this world, idle after its launch.
    func engine(_ configuration: PurchaseEngine.Configuration? = nil) async throws -> PurchaseEngine {
        let engine = try PurchaseEngine(configuration: configuration ?? self.configuration())
        try await engine.start()
        await engine.waitUntilIdle()
        return engine
    }

    /// Moves the clock, lets the store renew and decide, and waits for the engine.
    func advance(by seconds: TimeInterval, _ engine: PurchaseEngine) async {
        clock.advance(by: seconds)
        await store.processRenewals()
        await engine.waitUntilIdle()
    }

    /// Leaves `count` owed deliveries behind, as a process that dies with the
    /// server down does: an engine buys coins for user-0, user-1, ... while
    /// every verification fails, then shuts down; the server works again.
    func leaveOwedDeliveries(_ count: Int) async throws {
        let first = try await engine()
        await server.setFaultRates(ServerFaultRates(serverError: 1))
        for index in 0..<count {
            _ = try await first.purchase(productID: Catalog.coins, user: "user-\(index)")
        }
        await server.setFaultRates(.none)
        await first.shutdown()
    }

    /// Every credit the server recorded, by transaction id.
    func creditCounts() async -> [String: Int] {
        var counts: [String: Int] = [:]
        for transaction in await store.allTransactions() {
            counts[transaction.id] = await server.creditCount(transactionID: transaction.id)
        }
        return counts
    }

    /// Ends the first period of the user's first subscription order (as
    /// `orders` holds it) with a billing issue: the store's renewal of
    /// `productID` fails a minute after the period's end, and the engine has
    /// taken in what the store reported.
    func failFirstRenewal(of productID: String, user userID: String, orders: any OrderStore,
                          engine: PurchaseEngine) async throws {
        let stored = try await orders.orders(forUser: userID)
        let expiration = try XCTUnwrap(stored.first?.transaction?.expirationDate)
        await store.simulateBillingIssue(productID: productID)
        clock.advance(to: expiration.addingTimeInterval(60))
        await store.processRenewals()
        await engine.waitUntilIdle()
    }
}
