import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// The products every engine test sells.
enum Catalog {
    static let coins = "com.example.coins.100"
    static let pro = "com.example.pro"
    static let monthly = "com.example.plus.monthly"
    static let season = "com.example.season"
    static let group = "plus-group"

    static var products: [StoreProduct] {
        [
            StoreProduct(id: coins, type: .consumable, displayName: "100 coins", price: Decimal(string: "0.99")!),
            StoreProduct(id: pro, type: .nonConsumable, displayName: "Pro", price: Decimal(string: "4.99")!),
            StoreProduct(id: monthly, type: .autoRenewable, displayName: "Plus monthly", price: Decimal(string: "2.99")!,
                    subscription: SubscriptionInfo(groupID: group, period: try! SubscriptionPeriod(iso8601: "P1M"))),
            StoreProduct(id: season, type: .nonRenewable, displayName: "Season pass", price: Decimal(string: "9.99")!),
        ]
    }
}

/// One simulated world: a store account, a verification server, an order
/// store and a clock, that outlive any engine made on them (a relaunch is a
/// new engine on the same world).
struct World {
    let clock = ManualClock()
    let store: SimulatedPaymentQueue
    let server: SimulatedReceiptServer
    let orders: InMemoryOrderStore
    let log = RecordingLogHandler()

    init(seed: UInt64 = 1, orders: InMemoryOrderStore = InMemoryOrderStore(),
         settings: StoreKitConfiguration.Settings = .init()) {
        let signer = ReceiptSigner()
        store = SimulatedPaymentQueue(products: Catalog.products, settings: settings, clock: clock, seed: seed, signer: signer)
        server = SimulatedReceiptServer(signer: signer, clock: clock, seed: seed, store: store)
        self.orders = orders
    }

    func configuration(
        store orderStore: (any OrderStore)? = nil,
        queue: (any PaymentQueue)? = nil,
        verifier: (any ReceiptVerifier)? = nil,
        generator: any OrderGenerator = CountingOrderGenerator(),
        retry: RetryPolicy = RetryPolicy(initialDelay: 10, multiplier: 2, maximumDelay: 600, jitter: 0.1,
                                         attemptBudget: 4, needsAttentionInterval: 3600),
        duplicates: PurchaseEngine.DuplicatePurchasePolicy = .reject,
        storeTimeout: TimeInterval? = nil,
        verificationTimeout: TimeInterval? = nil
    ) -> PurchaseEngine.Configuration {
        PurchaseEngine.Configuration(
            paymentQueue: queue ?? store, receiptVerifier: verifier ?? server, orderStore: orderStore ?? orders,
            orderGenerator: generator, clock: clock, logHandler: log,
            policies: .init(retryPolicy: retry, duplicatePurchasePolicy: duplicates),
            limits: .init(maximumConcurrentPurchases: 4, storeTimeout: storeTimeout, verificationTimeout: verificationTimeout))
    }

    /// A started engine on this world.
    func engine(_ configuration: PurchaseEngine.Configuration? = nil) async throws -> PurchaseEngine {
        let engine = try PurchaseEngine(configuration: configuration ?? self.configuration())
        try await engine.start()
        await engine.waitUntilIdle()
        return engine
    }

    /// Every credit the server recorded, by transaction id.
    func creditCounts() async -> [String: Int] {
        var counts: [String: Int] = [:]
        for transaction in await store.allTransactions() {
            counts[transaction.id] = await server.creditCount(transactionID: transaction.id)
        }
        return counts
    }
}

extension World {
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

/// Order ids `order-1`, `order-2`, ... so tests can name them.
final class CountingOrderGenerator: OrderGenerator {
    private let counter = Locked(0)
    func makeOrderID(for request: OrderRequest) async throws -> String {
        "order-\(counter.withLock { $0 += 1; return $0 })"
    }
}

/// An order generator whose server is down.
struct FailingOrderGenerator: OrderGenerator {
    struct Down: Error {}
    func makeOrderID(for request: OrderRequest) async throws -> String { throw Down() }
}

/// Collects every event of one subscription, so a test can read what happened.
actor EventLog {
    private(set) var events: [PurchaseEvent] = []
    private var task: Task<Void, Never>?

    init(_ engine: PurchaseEngine) async {
        let stream = await engine.events()
        task = Task { [weak self] in
            for await event in stream { await self?.append(event) }
        }
    }

    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    private func append(_ event: PurchaseEvent) {
        events.append(event)
        let ready = waiters.filter { $0.count <= events.count }
        waiters.removeAll { $0.count <= events.count }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once at least `count` events have arrived.
    func waitForEvents(count: Int) async {
        if events.count >= count { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }

    /// The statuses one order passed through, in order.
    func statuses(of orderID: String) -> [OrderStatus] {
        events.compactMap {
            if case .orderChanged(let order, _) = $0, order.id == orderID { return order.status }
            return nil
        }
    }

    func stop() { task?.cancel() }
}
