import XCTest
import PurchaseKit
import PurchaseKitSimulator

final class AskToBuyTests: XCTestCase {
    func testApprovalDeliversPurchasedWithNoPurchaseCallWaiting() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        await store.setDefaultBehavior(.askToBuy)
        try await store.add(TestCatalog.payment(TestCatalog.premium, token: "order-7", user: "kid"))
        XCTAssertEqual(observer.kinds, [.purchasing, .deferred])
        let unfinished = await store.unfinishedTransactions()
        XCTAssertTrue(unfinished.isEmpty, "a deferred purchase charges nothing")

        let pendingList = await store.pendingAskToBuy()
        let pending = try XCTUnwrap(pendingList.first)
        XCTAssertEqual(pending.productID, TestCatalog.premium)
        XCTAssertEqual(pending.orderToken, "order-7")
        XCTAssertEqual(pending.userID, "kid")
        XCTAssertFalse(pending.description.contains("order-7"))
        var dumped = ""
        dump(pending, to: &dumped)
        XCTAssertFalse(dumped.contains("order-7"), "dump must not show the order token")

        observer.reset()
        try await store.approveAskToBuy(id: pending.id)
        XCTAssertEqual(observer.kinds, [.purchased])
        XCTAssertEqual(observer.updates.first?.transaction?.orderToken, "order-7")
        let left = await store.pendingAskToBuy()
        XCTAssertTrue(left.isEmpty)
    }

    func testDeclineDeliversFailedDeclined() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        await store.scriptNextPurchase(.askToBuy)
        try await store.add(TestCatalog.payment(TestCatalog.coins, token: "order-8"))
        observer.reset()
        try await store.declineAskToBuy(orderToken: "order-8")
        XCTAssertEqual(observer.kinds, [.failed(.declined)])
        XCTAssertEqual(observer.updates.first?.orderToken, "order-8")
        let transactions = await store.allTransactions()
        XCTAssertTrue(transactions.isEmpty)
    }

    func testApprovalByOrderTokenWorksEvenWhenTheTokenIsLost() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        await store.scriptNextPurchase(.askToBuy, faults: DeliveryFaults(losesOrderToken: true))
        try await store.add(TestCatalog.payment(TestCatalog.coins, token: "order-lost"))
        let pending = await store.pendingAskToBuy()
        XCTAssertNil(pending.first?.orderToken)
        try await store.approveAskToBuy(orderToken: "order-lost")
        XCTAssertEqual(observer.kinds.last, .purchased)
        XCTAssertNil(observer.updates.last?.transaction?.orderToken)
    }

    func testAnsweringAnUnknownRequestThrows() async throws {
        let (store, _, _) = try await TestCatalog.makeStore()
        do {
            try await store.approveAskToBuy(id: "pending-404")
            XCTFail("expected orderNotFound")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .orderNotFound)
        }
    }

    func testInterruptedPurchaseCompletesLater() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        await store.setBehavior(.interrupted, for: TestCatalog.coins)
        try await store.add(TestCatalog.payment(TestCatalog.coins, token: "order-i"))
        XCTAssertEqual(observer.kinds, [.purchasing, .interrupted])
        let interruptedList = await store.pendingInterrupted()
        let interrupted = try XCTUnwrap(interruptedList.first)
        let askToBuy = await store.pendingAskToBuy()
        XCTAssertTrue(askToBuy.isEmpty)
        try await store.completeInterruptedPurchase(id: interrupted.id)
        XCTAssertEqual(observer.kinds, [.purchasing, .interrupted, .purchased])
        XCTAssertEqual(observer.updates.last?.transaction?.orderToken, "order-i")
    }
}
