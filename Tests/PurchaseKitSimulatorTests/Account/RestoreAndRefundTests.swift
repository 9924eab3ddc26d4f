import XCTest
import PurchaseKit
import PurchaseKitSimulator

final class RestoreAndRefundTests: XCTestCase {
    func testRestoreReturnsNonConsumablesAndRunningSubscriptionsOnly() async throws {
        let (store, clock, _) = try await TestCatalog.makeStore(settings: .init(timeRate: .init(factor: 86_400)))
        try await store.add(TestCatalog.payment(TestCatalog.coins, token: "c"))
        try await store.add(TestCatalog.payment(TestCatalog.pass, token: "p"))
        try await store.add(TestCatalog.payment(TestCatalog.premium, token: "n"))
        try await store.add(TestCatalog.payment(TestCatalog.monthly, token: "m"))
        clock.advance(by: 40)
        let restored = try await store.restoreCompletedTransactions()
        XCTAssertEqual(restored.map(\.productID), [TestCatalog.premium, TestCatalog.monthly])
        let monthly = try XCTUnwrap(restored.last)
        XCTAssertNotEqual(monthly.id, monthly.originalID, "the latest renewal is restored")
        XCTAssertGreaterThan(try XCTUnwrap(monthly.expirationDate), clock.now)
    }

    func testRefundRevokesAndDeliversARevocation() async throws {
        let (store, clock, observer) = try await TestCatalog.makeStore()
        try await store.add(TestCatalog.payment(TestCatalog.premium, token: "order-r"))
        let transaction = try XCTUnwrap(observer.updates.last?.transaction)
        try await store.finish(transactionID: transaction.id)
        clock.advance(by: 3_600)
        observer.reset()
        try await store.refund(transactionID: transaction.id, reason: .developerIssue)
        XCTAssertEqual(observer.kinds, [.revoked])
        let revoked = try XCTUnwrap(observer.updates.first?.transaction)
        XCTAssertEqual(revoked.id, transaction.id)
        XCTAssertEqual(revoked.revocationDate, clock.now)
        XCTAssertEqual(revoked.revocationReason, .developerIssue)
        XCTAssertEqual(observer.updates.first?.orderToken, "order-r")
        let restored = try await store.restoreCompletedTransactions()
        XCTAssertTrue(restored.isEmpty, "a refunded purchase is not restored")

        observer.reset()
        try await store.refund(transactionID: transaction.id)
        XCTAssertTrue(observer.updates.isEmpty, "refunding twice does nothing")
    }

    func testRevocationWaitsForAnObserverAndIsReplayedOnce() async throws {
        let store = SimulatedPaymentQueue(products: try TestCatalog.products, clock: ManualClock())
        try await store.add(TestCatalog.payment(TestCatalog.premium))
        let id = try unwrapped(await store.unfinishedTransactions().first?.id)
        try await store.finish(transactionID: id)
        try await store.refund(transactionID: id)
        let observer = RecordingObserver()
        await store.attach(observer)
        // `.purchasing` found no observer either; the finished purchase is not replayed.
        XCTAssertEqual(observer.kinds, [.purchasing, .revoked])
        let again = RecordingObserver()
        await store.attach(again)
        XCTAssertTrue(again.updates.isEmpty, "a revocation an observer has seen is not replayed")
    }

    func testRefundEndsTheSubscription() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        try await store.add(TestCatalog.payment(TestCatalog.monthly))
        let transaction = try XCTUnwrap(observer.updates.last?.transaction)
        try await store.refund(transactionID: transaction.id)
        let status = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.monthly))
        XCTAssertEqual(status.state, .revoked)
        XCTAssertFalse(status.willAutoRenew)
    }

    func testRefundingAnUnknownTransactionThrows() async throws {
        let (store, _, _) = try await TestCatalog.makeStore()
        do {
            try await store.refund(transactionID: "404")
            XCTFail("expected orderNotFound")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .orderNotFound)
        }
    }
}
