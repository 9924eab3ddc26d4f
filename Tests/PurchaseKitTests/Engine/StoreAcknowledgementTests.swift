import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
import XCTest

/// What the store hands over must be acknowledged: failed and cancelled
/// payments are finished, and a revocation the store announced while no
/// process could record it is still applied.
final class StoreAcknowledgementTests: XCTestCase {
    func testFailedCancelledAndDeclinedPaymentsAreFinished() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.scriptNextPurchases([PurchaseScript(.userCancel), PurchaseScript(.fail(.networkError)),
                                               PurchaseScript(.askToBuy)])
        _ = try? await engine.purchase(productID: Catalog.coins, user: "alice")
        _ = try? await engine.purchase(productID: Catalog.pro, user: "alice")
        _ = try await engine.purchase(productID: Catalog.season, user: "alice")
        let requests = await world.store.pendingAskToBuy()
        let pending = try XCTUnwrap(requests.first)
        try await world.store.declineAskToBuy(id: pending.id)
        await engine.waitUntilIdle()
        let unfinished = await world.store.unfinishedPaymentIDs()
        XCTAssertEqual(unfinished, [], "StoreKit requires finishing failed transactions too")
        let orders = await world.orders.orders(forUser: "alice")
        XCTAssertEqual(Set(orders.map(\.status)), [.cancelled, .failed])
    }

    func testAFailureWhoseSaveFailedIsReplayedAndFinishedLater() async throws {
        let world = World()
        let orders = failingSaves(world.orders, statuses: [.cancelled], times: 1)
        let engine = try await world.engine(world.configuration(store: orders))
        await world.store.scriptNextPurchase(.userCancel)
        _ = try? await engine.purchase(productID: Catalog.coins, user: "alice")
        await engine.waitUntilIdle()
        let kept = await world.store.unfinishedPaymentIDs()
        XCTAssertEqual(kept.count, 1, "the cancellation was not saved: the store must keep replaying it")

        await engine.retryPendingDeliveries()
        await engine.waitUntilIdle()
        let left = await world.store.unfinishedPaymentIDs()
        XCTAssertEqual(left, [])
        let saved = await world.orders.orders(forUser: "alice")
        XCTAssertEqual(saved.map(\.status), [.cancelled])
    }

    /// A refund the store announced to a process that died before saving it
    /// (the store announces a revocation once) is found at the next launch.
    func testARevocationAnnouncedToADeadProcessIsAppliedAtTheNextLaunch() async throws {
        let world = World()
        let first = try await world.engine()
        let result = try await first.purchase(productID: Catalog.pro, user: "alice")
        guard case .success(let order) = result else { return XCTFail("\(result)") }
        let transactionID = try XCTUnwrap(order.transactionID)

        // The process dies: a deaf observer takes the store's one announcement.
        let deaf = DeafObserver()
        await world.store.attach(deaf)
        try await world.store.refund(transactionID: transactionID)
        XCTAssertEqual(deaf.heard, 1)

        let second = try await world.engine()
        let entitlements = try await second.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty, "the refunded product must not be granted: \(entitlements)")
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .revoked)
    }
}

/// An observer that hears updates and does nothing with them: a process that dies at once.
final class DeafObserver: PaymentQueueObserver {
    private let count = Locked(0)
    var heard: Int { count.withLock { $0 } }
    func paymentQueue(didUpdate updates: [TransactionUpdate]) async {
        count.withLock { $0 += updates.count }
    }
}
