import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Background deliveries run a bounded number at a time: a burst of paid
/// transactions (here twenty left unfinished by a killed process, replayed
/// at launch) never asks the server more than
/// `limits.maximumConcurrentDeliveries` times at once, and every one is
/// still delivered, once.
final class DeliveryLaneTests: XCTestCase {
    /// A store holding unfinished, tokenless paid transactions, which it
    /// replays to each observer that attaches.
    final class ReplayingStore: PaymentQueue {
        let unfinished: [StoreTransaction]
        let finished = Locked<Set<String>>([])

        init(unfinished: [StoreTransaction]) { self.unfinished = unfinished }

        func products(for identifiers: Set<String>) async throws -> ProductsResponse {
            ProductsResponse(products: [], invalidProductIDs: Array(identifiers))
        }
        func canMakePayments() async -> Bool { true }
        func add(_ payment: Payment) async throws {}
        func finish(transactionID: String) async throws { _ = finished.withLock { $0.insert(transactionID) } }
        func restoreCompletedTransactions() async throws -> [StoreTransaction] { [] }
        func revokedTransactions() async throws -> [StoreTransaction] { [] }
        func attach(_ observer: any PaymentQueueObserver) async {
            let updates = unfinished.map {
                TransactionUpdate(kind: .purchased, productID: $0.productID, orderToken: nil, transaction: $0, date: $0.purchaseDate)
            }
            await observer.paymentQueue(didUpdate: updates)
        }
    }

    /// A verifier that holds every call until told to answer, and counts how
    /// many were in flight at once.
    actor HoldingVerifier: ReceiptVerifier {
        private(set) var inFlight = 0
        private(set) var mostInFlight = 0
        private(set) var delivered: [String] = []
        private var held: [CheckedContinuation<Void, Never>] = []
        private var answersAtOnce = false
        private var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
            inFlight += 1
            mostInFlight = max(mostInFlight, inFlight)
            for watcher in watchers where inFlight >= watcher.count { watcher.continuation.resume() }
            watchers.removeAll { inFlight >= $0.count }
            if !answersAtOnce { await withCheckedContinuation { held.append($0) } }
            inFlight -= 1
            delivered.append(request.transaction.id)
            return .delivered
        }

        /// Returns once `count` calls are in flight.
        func waitUntilInFlight(_ count: Int) async {
            if inFlight >= count { return }
            await withCheckedContinuation { watchers.append((count, $0)) }
        }

        /// Answers the held calls and every later one at once.
        func answerAll() {
            answersAtOnce = true
            for continuation in held { continuation.resume() }
            held.removeAll()
        }
    }

    func testABurstOfPaidTransactionsIsDeliveredAFewAtATime() async throws {
        let clock = ManualClock()
        let transactions = (1...20).map {
            StoreTransaction(id: "t\($0)", productID: "com.example.coins", purchaseDate: clock.now)
        }
        let store = ReplayingStore(unfinished: transactions)
        let verifier = HoldingVerifier()
        let engine = try PurchaseEngine(configuration: .init(
            paymentQueue: store, receiptVerifier: verifier, orderStore: InMemoryOrderStore(), clock: clock,
            limits: .init(maximumConcurrentDeliveries: 3, verificationTimeout: nil, launchTimeout: nil)))
        await engine.setCurrentUser("alice")
        try await engine.start()

        await verifier.waitUntilInFlight(3)
        let inFlight = await verifier.inFlight
        XCTAssertEqual(inFlight, 3, "three deliveries run; seventeen wait their turn")
        await verifier.answerAll()
        await engine.waitUntilIdle()

        let most = await verifier.mostInFlight
        XCTAssertEqual(most, 3)
        let delivered = await verifier.delivered
        XCTAssertEqual(Set(delivered), Set(transactions.map(\.id)))
        XCTAssertEqual(delivered.count, 20, "each delivered once")
        XCTAssertEqual(store.finished.withLock { $0 }, Set(transactions.map(\.id)), "and every one finished")
    }

    func testTheLimitIsValidated() {
        let clock = ManualClock()
        var configuration = PurchaseEngine.Configuration(
            paymentQueue: ReplayingStore(unfinished: []), receiptVerifier: HoldingVerifier(), orderStore: InMemoryOrderStore(),
            clock: clock)
        configuration.limits.maximumConcurrentDeliveries = 0
        XCTAssertThrowsError(try PurchaseEngine(configuration: configuration)) { error in
            XCTAssertEqual((error as? PurchaseKitError)?.keyPath, "limits.maximumConcurrentDeliveries")
        }
    }
}
