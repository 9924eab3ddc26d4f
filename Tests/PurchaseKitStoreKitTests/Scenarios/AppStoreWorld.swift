// The scenario tests drive AppStorePaymentQueue over the scripted App Store
// behind StoreKitInterface, which exists only where StoreKit does not.
#if !canImport(StoreKit)
import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
@testable import PurchaseKitStoreKit
import StoreKitInterface
import XCTest

/// The products the scenarios sell.
enum Shop {
    static let coins = "com.example.coins.100"
    static let premium = "com.example.premium"
    static let monthly = "com.example.plus.monthly"
    static let premiumMonthly = "com.example.plus.premium.monthly"
    static let season = "com.example.season"
    static let group = "plus"
}

/// The app's server, as a test sees it: it checks a receipt the way Apple's
/// App Store Server Library would (here: the JWS must be the one the App
/// Store signed for that transaction) and credits each transaction once, to
/// one user.
actor AppServer: ReceiptVerifier {
    private let store: ScriptedAppStore
    private(set) var requests: [VerificationRequest] = []
    private(set) var credits: [String: String] = [:]
    var isDown = false

    init(store: ScriptedAppStore) {
        self.store = store
    }

    func setDown(_ down: Bool) {
        isDown = down
    }

    func verify(_ request: VerificationRequest) async throws -> PurchaseKit.ReceiptVerdict {
        requests.append(request)
        if isDown { return .retryLater(reason: "the server is down") }
        guard case .signedTransaction(let jws) = AppStoreReceipt(request.transaction.receipt),
              let id = UInt64(request.transaction.id), store.jws(of: id) == jws else {
            return .invalid(reason: "not a transaction the App Store signed")
        }
        if let owner = credits[request.idempotencyKey] {
            return owner == request.order.userID ? .alreadyDelivered : .invalid(reason: "credited to another user")
        }
        credits[request.idempotencyKey] = request.order.userID
        return .delivered
    }
}

/// One App Store account, one server, one order store and one clock, which
/// outlive any app process: a relaunch is a new adapter and a new engine on
/// the same world.
final class AppStoreWorld: Sendable {
    let clock = ManualClock()
    let store: ScriptedAppStore
    let server: AppServer
    var orders: InMemoryOrderStore { ordersBox.withLock { $0 } }
    private let ordersBox = Locked(InMemoryOrderStore())
    let log = RecordingLogHandler()

    init() {
        store = ScriptedAppStore(now: clock.now)
        server = AppServer(store: store)
        ScriptedAppStore.install(store)
        store.addProduct(Shop.coins, type: .consumable, displayName: "100 coins", description: "A pile of coins",
                         price: Decimal(string: "0.99")!, displayPrice: "0,99 €", currencyCode: "EUR")
        store.addProduct(Shop.premium, type: .nonConsumable, displayName: "Premium", price: Decimal(string: "4.99")!,
                         displayPrice: "$4.99", isFamilyShareable: true)
        store.addProduct(Shop.monthly, type: .autoRenewable, displayName: "Plus monthly", price: Decimal(string: "2.99")!,
                         displayPrice: "$2.99",
                         subscription: ScriptedSubscription(groupID: Shop.group, unit: .month, groupLevel: 2,
                                                            introductoryOffer: .init(paymentMode: .freeTrial, unit: .week,
                                                                                     displayPrice: "Free")))
        store.addProduct(Shop.premiumMonthly, type: .autoRenewable, displayName: "Plus Premium monthly",
                         price: Decimal(string: "5.99")!, displayPrice: "$5.99",
                         subscription: ScriptedSubscription(groupID: Shop.group, unit: .month, groupLevel: 1))
        store.addProduct(Shop.season, type: .nonRenewable, displayName: "Season pass", price: Decimal(string: "9.99")!,
                         displayPrice: "$9.99")
    }

    /// An app process: the adapter and a started engine on it, with `user` logged in.
    func launch(user: String? = "alice", storeTimeout: TimeInterval? = 60,
                promotedPurchases: AppStorePaymentQueue.Configuration.PromotedPurchases = .buy) async throws
        -> (PurchaseEngine, AppStorePaymentQueue) {
        let queue = AppStorePaymentQueue(configuration: .init(clock: clock, promotedPurchases: promotedPurchases))
        let engine = try PurchaseEngine(configuration: .init(
            paymentQueue: queue, receiptVerifier: VerifiedReceiptsOnly(server), orderStore: orders, clock: clock,
            logHandler: log,
            policies: .init(retryPolicy: RetryPolicy(initialDelay: 10, multiplier: 2, maximumDelay: 600, jitter: 0,
                                                     attemptBudget: 3, needsAttentionInterval: nil)),
            limits: .init(storeTimeout: storeTimeout)))
        await engine.setCurrentUser(user)
        try await engine.start()
        await store.waitForListeners(updates: 1, intents: 1)
        await engine.waitUntilIdle()
        return (engine, queue)
    }

    /// A reinstall: the app's orders are gone; the App Store account and the server remain.
    func reinstall() {
        ordersBox.withLock { $0 = InMemoryOrderStore() }
    }

    /// Moves the app's clock and the App Store's together.
    func advance(by seconds: TimeInterval) {
        clock.advance(by: seconds)
        store.setNow(clock.now)
    }

    /// An order as the order store holds it now.
    func order(_ id: String) async throws -> Order {
        let order = await orders.order(id: id)
        return try XCTUnwrap(order, "no order \(id)")
    }

    /// A user's orders, open and archived, oldest first.
    func orders(of user: String) async -> [Order] {
        await orders.orders(forUser: user)
    }

    /// The App Store's id of an order's transaction.
    func transactionID(of order: Order) throws -> UInt64 {
        try XCTUnwrap(order.transaction.flatMap { UInt64($0.id) })
    }
}

/// Records what a payment queue hands to its observer.
final class RecordingObserver: PaymentQueueObserver {
    private let received = Locked<[[TransactionUpdate]]>([])

    /// Every batch received, in order.
    var batches: [[TransactionUpdate]] { received.withLock { $0 } }
    /// Every update received, in order.
    var updates: [TransactionUpdate] { batches.flatMap { $0 } }

    func paymentQueue(didUpdate updates: [TransactionUpdate]) async {
        // Slow on purpose: a queue that does not await its observer has returned long before this records.
        for _ in 0..<50 { await Task.yield() }
        received.withLock { $0.append(updates) }
    }
}

/// Fails instead of hanging when `body` does not return in time: for the
/// few properties whose failure would otherwise be a wait without end.
func returnsPromptly(_ what: String, within seconds: TimeInterval = 20, _ body: @escaping @Sendable () async -> Void) async {
    let done = XCTestExpectation(description: what)
    let task = Task {
        await body()
        done.fulfill()
    }
    let outcome = await XCTWaiter().fulfillment(of: [done], timeout: seconds)
    if outcome != .completed {
        task.cancel()
        XCTFail("\(what) did not return")
    }
}
#endif
