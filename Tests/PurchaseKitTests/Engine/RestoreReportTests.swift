import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// What a restore reports when it meets a purchase that something else is
/// handling at the same moment: a delivery under way, a payment whose update
/// the store has not sent yet, a refund the store's list does not show yet.
/// The report is what the app tells the user, so it must say what really
/// happened: never "on its way" for a purchase already credited or refunded,
/// never "paid and saved" for one whose order could not be saved.
final class RestoreReportTests: XCTestCase {
    /// A restore that meets a delivery already under way for the same purchase
    /// waits for it and reports the purchase delivered. Reporting it owed would
    /// tell the user a purchase credited a moment later is still on its way,
    /// with no retry coming that would ever say otherwise.
    func testARestoreThatMeetsADeliveryUnderWayWaitsForItAndReportsItDelivered() async throws {
        let world = World()
        let verifierGate = Gate()
        let verifier = InterceptingVerifier(wrapping: world.server) { _ in
            await verifierGate.pass()
            return .proceed
        }
        let engine = try await world.engine(world.configuration(verifier: verifier))
        let purchase = Task { try await engine.purchase(productID: Catalog.pro, user: "alice") }
        // Alice's purchase is paid; its delivery waits on the app's server.
        await verifier.waitForCalls(1)
        let duplicatesBefore = await engine.diagnostics.staleUpdatesIgnored
        let restore = Task { try await engine.restorePurchases(user: "alice") }
        // The restore finds the paid order (the transaction is a duplicate of it)
        // while the delivery still holds it.
        var reached = false
        for _ in 0..<100_000 {
            if await engine.diagnostics.staleUpdatesIgnored > duplicatesBefore { reached = true; break }
            await Task.yield()
        }
        XCTAssertTrue(reached, "the restore reached the order being delivered")
        verifierGate.open()

        let result = try await restore.value
        XCTAssertEqual(result.delivered.map(\.productID), [Catalog.pro])
        XCTAssertEqual(result.delivered.map(\.status), [.completed])
        XCTAssertTrue(result.owed.isEmpty, "nothing is left on its way")
        XCTAssertTrue(result.failures.isEmpty)
        let answer = try await purchase.value
        guard case .success = answer else { return XCTFail("\(answer)") }
        let credits = await world.creditCounts()
        XCTAssertEqual(Array(credits.values), [1], "credited once")
    }

    /// A restore that lists a payment whose own update the store has not sent
    /// yet, and whose order could not be saved with it, reports a failure, not
    /// an owed order: nothing was saved, so "paid and saved, delivery retried"
    /// would be false. The store keeps the purchase, and its update later
    /// delivers it once.
    func testARestoredPaymentWhoseOrderCouldNotBeSavedWithItIsAFailureNotOwed() async throws {
        let world = World()
        let orders = failingSaves(world.orders, statuses: [.purchased], times: 1)
        let engine = try await world.engine(world.configuration(store: orders))
        // The store charges Alice but has not told the app yet.
        await world.store.setHoldsUpdates(true)
        let purchase = Task { try await engine.purchase(productID: Catalog.pro, user: "alice") }
        await world.store.waitForPayments(count: 1)
        await engine.waitUntilIdle()

        // She restores on the same device; the disk is full for the paid order.
        let result = try await engine.restorePurchases(user: "alice")
        XCTAssertEqual(result.failures.map(\.productID), [Catalog.pro])
        XCTAssertEqual(result.failures.map(\.error.code), [.persistenceWriteFailed])
        XCTAssertTrue(result.owed.isEmpty, "an order not saved with its payment is not owed")
        XCTAssertTrue(result.delivered.isEmpty)

        // The store's update arrives: the purchase is delivered once.
        await world.store.setHoldsUpdates(false)
        await world.store.releaseHeldUpdates()
        await engine.waitUntilIdle()
        _ = await purchase.result
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.pro])
        let credits = await world.creditCounts()
        XCTAssertEqual(Array(credits.values), [1], "credited once")
    }

    /// A restore whose list still shows a purchase the store has refunded
    /// (the list lags behind the refund the app was told of) neither restores
    /// it nor reports it owed: the refunded order stays revoked, and the user
    /// is not told a refunded purchase is on its way.
    func testARefundedPurchaseAStaleRestoreListStillShowsIsNeitherRestoredNorOwed() async throws {
        let world = World()
        let queue = InterceptingPaymentQueue(wrapping: world.store)
        let engine = try await world.engine(world.configuration(queue: queue))
        _ = try await engine.purchase(productID: Catalog.pro, user: "alice")
        let transactions = await world.store.allTransactions()
        let bought = try XCTUnwrap(transactions.first)
        try await world.store.refund(transactionID: bought.id)
        await engine.waitUntilIdle()

        // The store's restore list lags: it still shows the purchase, unrefunded.
        queue.intercept { call in
            call.name == .restoreCompletedTransactions ? .answer(.transactions([bought])) : .proceed
        }
        let result = try await engine.restorePurchases(user: "alice")
        XCTAssertTrue(result.delivered.isEmpty)
        XCTAssertTrue(result.owed.isEmpty, "a refunded purchase is not on its way")
        XCTAssertTrue(result.failures.isEmpty)
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty)
        let stored = await world.orders.order(transactionID: bought.id)
        XCTAssertEqual(stored?.status, .revoked)
        let credits = await world.creditCounts()
        XCTAssertEqual(Array(credits.values), [1], "credited once, never again")
    }
}
