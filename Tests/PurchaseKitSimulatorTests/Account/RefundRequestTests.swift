import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// Refund requests: submitted, then accepted or declined later on the clock.
final class RefundRequestTests: XCTestCase {
    private func bought() async throws -> (SimulatedPaymentQueue, ManualClock, RecordingObserver, StoreTransaction) {
        let (store, clock, observer) = try await TestCatalog.makeStore(settings: TestCatalog.Tiers.fast)
        try await store.add(TestCatalog.payment(TestCatalog.premium))
        let transaction = try XCTUnwrap(observer.updates.last?.transaction)
        try await store.finish(transactionID: transaction.id)
        observer.reset()
        return (store, clock, observer, transaction)
    }

    func testAcceptedRequestRevokesLaterOnTheClock() async throws {
        let (store, clock, observer, transaction) = try await bought()
        await store.setRefundRequestBehavior(.approve(afterDays: 2))
        let status = try await store.requestRefund(transactionID: transaction.id)
        XCTAssertEqual(status, .submitted)
        var decision = await store.refundRequestDecision(transactionID: transaction.id)
        XCTAssertEqual(decision, .pending)

        clock.advance(by: 1)
        await store.processRefundRequests()
        XCTAssertTrue(observer.updates.isEmpty, "the store has not decided yet")

        clock.advance(by: 1.5)
        await store.processRenewals()
        XCTAssertEqual(observer.kinds, [.revoked])
        XCTAssertEqual(observer.updates.first?.transaction?.id, transaction.id)
        decision = await store.refundRequestDecision(transactionID: transaction.id)
        XCTAssertEqual(decision, .approved)
        let revoked = try await store.revokedTransactions()
        XCTAssertEqual(revoked.map(\.id), [transaction.id])
    }

    func testDeclinedRequestChangesNothing() async throws {
        let (store, clock, observer, transaction) = try await bought()
        await store.setRefundRequestBehavior(.decline(afterDays: 1))
        _ = try await store.requestRefund(transactionID: transaction.id)
        clock.advance(by: 5)
        await store.processRefundRequests()
        XCTAssertTrue(observer.updates.isEmpty)
        let decision = await store.refundRequestDecision(transactionID: transaction.id)
        XCTAssertEqual(decision, .declined)
        let revoked = try await store.revokedTransactions()
        XCTAssertTrue(revoked.isEmpty)
        // Declined, so the user may ask again.
        await store.setRefundRequestBehavior(.approve(afterDays: 1))
        let again = try await store.requestRefund(transactionID: transaction.id)
        XCTAssertEqual(again, .submitted)
    }

    func testCancelledFailedDuplicateAndUnknownRequests() async throws {
        let (store, _, _, transaction) = try await bought()
        await store.setRefundRequestBehavior(.userCancels)
        let cancelled = try await store.requestRefund(transactionID: transaction.id)
        XCTAssertEqual(cancelled, .userCancelled)
        let decision = await store.refundRequestDecision(transactionID: transaction.id)
        XCTAssertNil(decision, "a cancelled sheet asks nothing")

        await store.setRefundRequestBehavior(.fails)
        await assertThrows(.refundRequestFailed) { _ = try await store.requestRefund(transactionID: transaction.id) }
        await assertThrows(.orderNotFound) { _ = try await store.requestRefund(transactionID: "999") }

        await store.setRefundRequestBehavior(.approve(afterDays: 2))
        _ = try await store.requestRefund(transactionID: transaction.id)
        await assertThrows(.refundRequestDuplicate) { _ = try await store.requestRefund(transactionID: transaction.id) }
        try await store.refund(transactionID: transaction.id)
        await assertThrows(.refundRequestDuplicate) { _ = try await store.requestRefund(transactionID: transaction.id) }
    }

    func testPendingRequestSurvivesSaveAndLoad() async throws {
        let (store, clock, _, transaction) = try await bought()
        _ = try await store.requestRefund(transactionID: transaction.id)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("refunds-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try await store.saveState(to: url)
        let reloaded = try SimulatedPaymentQueue.load(from: url, clock: clock)
        clock.advance(by: 3)
        await reloaded.processRefundRequests()
        let revoked = try await reloaded.revokedTransactions()
        XCTAssertEqual(revoked.map(\.id), [transaction.id])
    }
}
