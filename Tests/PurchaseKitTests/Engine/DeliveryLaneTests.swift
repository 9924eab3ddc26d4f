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

    /// The server, behind the interception: every receipt is good.
    struct AlwaysDelivers: ReceiptVerifier {
        func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict { .delivered }
    }

    func testABurstOfPaidTransactionsIsDeliveredAFewAtATime() async throws {
        let world = World(engineDefaults: .library)
        let transactions = (1...20).map {
            StoreTransaction(id: "t\($0)", productID: "com.example.coins", purchaseDate: world.clock.now)
        }
        let store = ReplayingStore(unfinished: transactions)
        // Every server call is counted in flight and held until the gate opens.
        let gate = Gate()
        let inFlight = InFlightCounter()
        let verifier = inFlight.verifier(wrapping: AlwaysDelivers()) { await gate.pass() }
        var configuration = world.configuration(queue: store, verifier: verifier, generator: UUIDOrderGenerator())
        configuration.limits = .init(maximumConcurrentDeliveries: 3, verificationTimeout: nil, launchTimeout: nil)
        let engine = try PurchaseEngine(configuration: configuration)
        await engine.setCurrentUser("alice")
        try await engine.start()

        // Three calls held at the gate are three counted in flight.
        await gate.waitForArrivals(3)
        XCTAssertEqual(verifier.calls.count, 3, "three deliveries run; seventeen wait their turn")
        gate.open()
        await engine.waitUntilIdle()

        XCTAssertEqual(inFlight.maximum, 3)
        let delivered = verifier.calls.map(\.request.transaction.id)
        XCTAssertEqual(Set(delivered), Set(transactions.map(\.id)))
        XCTAssertEqual(delivered.count, 20, "each delivered once")
        XCTAssertEqual(store.finished.withLock { $0 }, Set(transactions.map(\.id)), "and every one finished")
    }

    /// Launch recovery and a retry trigger that comes while it runs take
    /// their places in the same lane: together they never go past the one
    /// limit, and every owed delivery is still made once.
    func testLaunchRecoveryAndARetryTriggerShareTheLane() async throws {
        let world = World()
        try await world.leaveOwedDeliveries(6)

        let gate = Gate()
        let inFlight = InFlightCounter()
        let verifier = inFlight.verifier(wrapping: world.server) { await gate.pass() }
        var configuration = world.configuration(verifier: verifier)
        configuration.limits.maximumConcurrentDeliveries = 2
        let relaunched = try PurchaseEngine(configuration: configuration)
        try await relaunched.start()
        await gate.waitForArrivals(2)

        let trigger = Task { await relaunched.retryPendingDeliveries() }
        while !world.log.records.contains(where: { $0.message == "Retrying pending deliveries" }) { await Task.yield() }
        // Work the trigger started on its own would reach the verifier by now.
        for _ in 0..<200 { await Task.yield() }
        XCTAssertEqual(verifier.calls.count, 2, "the trigger's deliveries wait behind launch recovery's")

        gate.open()
        _ = await trigger.value
        await relaunched.waitUntilIdle()
        XCTAssertEqual(inFlight.maximum, 2)
        let credits = await world.creditCounts()
        XCTAssertEqual(credits.count, 6)
        XCTAssertTrue(credits.values.allSatisfy { $0 == 1 }, "each owed delivery made once: \(credits)")
    }

    func testTheLimitIsValidated() {
        let world = World(engineDefaults: .library)
        var configuration = world.configuration(queue: ReplayingStore(unfinished: []), verifier: AlwaysDelivers())
        configuration.limits.maximumConcurrentDeliveries = 0
        XCTAssertThrowsError(try PurchaseEngine(configuration: configuration)) { error in
            XCTAssertEqual((error as? PurchaseKitError)?.keyPath, "limits.maximumConcurrentDeliveries")
        }
    }
}
