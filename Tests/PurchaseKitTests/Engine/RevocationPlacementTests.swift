import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Where an order stands after a revocation that could not be recorded, or
/// that does not apply to it: never left among the open orders for nothing,
/// never archived while it still owes the store a finish.
final class RevocationPlacementTests: XCTestCase {
    /// Alice's delivered and archived purchase is refunded while the order
    /// store cannot save: the order, brought back from the archive to be
    /// revoked, is still there unchanged. It no longer stays among the open
    /// orders (it used to: returning it to the archive failed, since it had
    /// never left). The revocation waits with the store, and the next retry
    /// trigger records it.
    func testAnArchivedOrderWhoseRevocationCouldNotBeSavedLeavesTheOpenOrdersAndIsRevokedLater() async throws {
        let world = World()
        let orders = failingSaves(world.orders, statuses: [.revoked], times: 1)
        let engine = try await world.engine(world.configuration(store: orders))
        let result = try await engine.purchase(productID: Catalog.pro, user: "alice")
        guard case .success(let order) = result else { return XCTFail("\(result)") }
        let transactionID = try XCTUnwrap(order.transactionID)

        try await world.store.refund(transactionID: transactionID)
        await engine.waitUntilIdle()
        var open = await engine.openOrders()
        XCTAssertEqual(open, [], "a completed order is not shown as waiting")
        var stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .completed, "the revocation could not be saved")

        await engine.retryPendingDeliveries()
        await engine.waitUntilIdle()
        stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .revoked)
        open = await engine.openOrders()
        XCTAssertEqual(open, [])
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements, [])
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished, [])
    }

    /// Seed 676: a receipt the server rejected, whose finish failed, is
    /// refunded. The revocation does not apply to a rejected order, which
    /// was then archived with its transaction unfinished: no retry looks at
    /// the archive, so the store kept the transaction for ever. The order
    /// now stays open until a retry finishes it.
    func testARejectedOrderWhoseFinishFailedIsNotArchivedByARefundAndIsFinishedLater() async throws {
        let world = World()
        let (engine, transactionID) = try await rejectedPurchaseWhoseFinishFailed(world)

        try await world.store.refund(transactionID: transactionID)
        await engine.waitUntilIdle()
        let open = await engine.openOrders()
        XCTAssertEqual(open.map(\.status), [.rejected], "still owed its finish")
        XCTAssertEqual(open.first?.isFinished, false)

        await engine.retryPendingDeliveries()
        await engine.waitUntilIdle()
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished, [])
        let stored = await world.orders.order(transactionID: transactionID)
        XCTAssertTrue(stored?.isFinished ?? false)
        let credits = await world.server.creditCount(transactionID: transactionID)
        XCTAssertEqual(credits, 0)
    }
}
