import XCTest
import PurchaseKit
import PurchaseKitSimulator

final class ObserverTests: XCTestCase {
    func testFinishStopsTheReplayOnAttach() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        try await store.add(TestCatalog.payment(TestCatalog.coins, token: "a"))
        try await store.add(TestCatalog.payment(TestCatalog.pass, token: "b"))
        let first = try XCTUnwrap(observer.updates[1].transaction)
        try await store.finish(transactionID: first.id)

        let relaunched = RecordingObserver()
        await store.attach(relaunched)
        XCTAssertEqual(relaunched.kinds, [.purchased])
        XCTAssertEqual(relaunched.updates.first?.productID, TestCatalog.pass)
        XCTAssertEqual(relaunched.updates.first?.orderToken, "b")
        let finished = await store.isFinished(transactionID: first.id)
        XCTAssertTrue(finished)
    }

    func testFinishingAnUnknownOrFinishedTransactionIsANoOp() async throws {
        let (store, _, _) = try await TestCatalog.makeStore()
        try await store.add(TestCatalog.payment(TestCatalog.coins))
        let before = await store.unfinishedTransactions()
        let id = try XCTUnwrap(before.first?.id)
        try await store.finish(transactionID: id)
        try await store.finish(transactionID: id)
        try await store.finish(transactionID: "no-such-transaction")
        let unfinished = await store.unfinishedTransactions()
        XCTAssertTrue(unfinished.isEmpty)
    }

    func testUpdatesWaitWhileNoObserverIsAttached() async throws {
        let store = SimulatedPaymentQueue(products: try TestCatalog.products, clock: ManualClock())
        await store.scriptNextPurchase(.userCancel)
        try await store.add(TestCatalog.payment(TestCatalog.coins, token: "cancelled"))
        try await store.add(TestCatalog.payment(TestCatalog.coins, token: "paid"))
        let observer = RecordingObserver()
        await store.attach(observer)
        XCTAssertEqual(observer.kinds, [.purchasing, .cancelled, .purchasing, .purchased])
        XCTAssertEqual(observer.updates.last?.orderToken, "paid")
    }

    func testTheObserverIsHeldWeakly() async throws {
        let store = SimulatedPaymentQueue(products: try TestCatalog.products, clock: ManualClock())
        weak var weakObserver: RecordingObserver?
        do {
            let observer = RecordingObserver()
            weakObserver = observer
            await store.attach(observer)
        }
        XCTAssertNil(weakObserver, "the store must not keep the observer alive")
        try await store.add(TestCatalog.payment(TestCatalog.coins))
        let replay = RecordingObserver()
        await store.attach(replay)
        XCTAssertEqual(replay.kinds.last, .purchased)
    }
}
