import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
import XCTest

/// A payment the store reported failed (a lost connection) or cancelled, then
/// charged after all, as an interrupted StoreKit purchase can be: the late
/// charge is credited once, to the order that paid it and its user, however
/// late it comes and whoever is logged in by then.
final class LatePaymentTests: XCTestCase {
    func testAPaymentReportedLostToTheNetworkThatIsChargedLaterIsCreditedOnceToItsBuyer() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.scriptNextPurchase(.failsThenPays)
        let error = await assertThrows(.paymentFailed) { _ = try await engine.purchase(productID: Catalog.coins, user: "alice") }
        XCTAssertEqual(error?.storeReason, .networkError)
        let advice = try XCTUnwrap(error?.advice)
        XCTAssertFalse(advice.contains("Nothing was charged"),
                       "the store may still charge a payment whose connection dropped: \(advice)")
        let failedID = try XCTUnwrap(error?.orderID)

        // Bob logs in on the same device before the store charges Alice's payment.
        await engine.setCurrentUser("bob")
        try await chargeTheLatePayment(world)
        await engine.waitUntilIdle()

        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["alice"], "one credit, to the buyer")
        XCTAssertEqual(credits.map(\.orderID), [failedID], "to the order that paid")
        let alice = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(alice, [Catalog.coins: 1])
        let bob = try await engine.consumableBalance(user: "bob")
        XCTAssertEqual(bob, [:])
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished, [], "the late charge is finished with the store")
        let unfinishedReports = await world.store.unfinishedPaymentIDs()
        XCTAssertEqual(unfinishedReports, [], "and so is the failure reported before it")

        // Neither a retry nor a relaunch credits it again.
        await engine.retryPendingDeliveries()
        await engine.waitUntilIdle()
        await engine.shutdown()
        let relaunched = try await world.engine()
        await relaunched.waitUntilIdle()
        let after = await world.server.allCredits
        XCTAssertEqual(after.count, 1)
        let balance = try await relaunched.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 1])
    }

    func testACancelledPaymentChargedAfterARelaunchIsCreditedToItsBuyer() async throws {
        let world = World()
        let first = try await world.engine()
        await world.store.scriptNextPurchase(.cancelsThenPays)
        let result = try await first.purchase(productID: Catalog.pro, user: "alice")
        guard case .userCancelled(let cancelled) = result else { return XCTFail("\(result)") }
        await first.waitUntilIdle()
        await first.shutdown()

        // The app is relaunched with another user logged in; then the store charges.
        let relaunched = try await world.engine()
        await relaunched.setCurrentUser("bob")
        try await chargeTheLatePayment(world)
        await relaunched.waitUntilIdle()

        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["alice"])
        XCTAssertEqual(credits.map(\.orderID), [cancelled.id])
        let alice = try await relaunched.entitlements(user: "alice")
        XCTAssertEqual(alice.map(\.productID), [Catalog.pro], "the lifetime purchase is Alice's")
        let bob = try await relaunched.entitlements(user: "bob")
        XCTAssertEqual(bob, [])
    }

    func testALatePaymentWhoseVerificationFailsAndWhoseReplyIsLostIsCreditedOnce() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.scriptNextPurchase(.failsThenPays)
        _ = try? await engine.purchase(productID: Catalog.coins, user: "alice")
        // The first request fails; the second is applied, but its reply is lost.
        await world.server.failNext(1, with: .serverError(statusCode: 503))
        await world.server.failNext(1, with: .replyLost)
        try await chargeTheLatePayment(world)
        await engine.waitUntilIdle()
        let beforeRetry = await world.server.allCredits
        XCTAssertEqual(beforeRetry, [], "the server did not answer: nothing is credited yet")
        let kept = await world.store.unfinishedTransactions()
        XCTAssertEqual(kept.count, 1, "the paid transaction stays unfinished until it is credited")

        for _ in 0..<3 {
            world.clock.advance(by: 3_600)
            await engine.retryPendingDeliveries()
            await engine.waitUntilIdle()
        }
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["alice"], "applied once, however many times it was asked")
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 1])
        let left = await world.store.unfinishedTransactions()
        XCTAssertEqual(left, [])
    }

    /// A payment whose token the store lost, charged while the order store
    /// could not say which order held it: the charge waits with the store, the
    /// order's payment expires, and the matching window passes on the
    /// device's clock before a launch. The charge is dated within the window,
    /// so the expired order stays open for it, and it is credited to its buyer
    /// once the orders can be read, not to whoever is logged in by then.
    func testALostTokenChargeThatWaitedUnmatchedPastTheWindowStillReachesItsBuyer() async throws {
        try await expectTheBuyerCredited(whileTheOrderStore: .cannotSayWhichOrder)
    }

    /// The same when the charge found its order but the order's save failed,
    /// at the first delivery and again at the launch's replay.
    func testALostTokenChargeWhoseOrderCouldNotBeSavedPastTheWindowStillReachesItsBuyer() async throws {
        try await expectTheBuyerCredited(whileTheOrderStore: .cannotSavePayments)
    }

    private enum StoreFault { case cannotSayWhichOrder, cannotSavePayments }

    private func expectTheBuyerCredited(whileTheOrderStore fault: StoreFault) async throws {
        let world = World()
        let failing = Locked(true)
        struct StorageFailure: Error {}
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            guard failing.withLock({ $0 }) else { return .proceed }
            switch (fault, call) {
            case (.cannotSayWhichOrder, .orderWithTransactionID), (.cannotSayWhichOrder, .ordersOfPurchase):
                return .fail(StorageFailure())
            case (.cannotSavePayments, .save(let order)) where order.transactionID != nil: return .fail(StorageFailure())
            default: return .proceed
            }
        }
        var configuration = world.configuration(store: orders, storeTimeout: 60)
        configuration.limits.paymentExpiry = 3600
        let first = try await world.engine(configuration)
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true))
        let call = Task { try await first.purchase(productID: Catalog.season, user: "alice") }
        // The charge arrives, and the order store fails it.
        await orders.waitForCalls { call in
            switch call {
            case .orderWithTransactionID, .ordersOfPurchase: return fault == .cannotSayWhichOrder
            case .save(let order): return fault == .cannotSavePayments && order.transactionID != nil
            default: return false
            }
        }
        world.clock.advance(by: 60)
        let answer = try await call.value
        // Unplaced, the charge is no answer: the call hears its timeout. Placed
        // but not saved, the call hears that the paid order's delivery is retried.
        let expected: PurchaseResult.PendingReason = fault == .cannotSayWhichOrder ? .storeTimeout : .deliveryRetrying
        guard case .pending(let order, expected) = answer else { return XCTFail("answered \(answer)") }
        let events = await first.events()
        world.clock.advance(by: 3600)
        for await event in events {
            if case .orderChanged(let changed, from: .purchasing) = event, changed.id == order.id { break }
        }
        let expired = await world.orders.order(id: order.id)
        XCTAssertEqual(expired?.status, .failed, "the payment expired")
        let waiting = await world.store.unfinishedTransactions()
        XCTAssertEqual(waiting.count, 1, "the charge waits with the store")

        // Eight days later the app is launched again; the order store still fails.
        await first.shutdown()
        world.clock.advance(by: 8 * 24 * 3600)
        let relaunched = try await world.engine(configuration)
        let stillOpen = await relaunched.openOrders(user: "alice")
        XCTAssertEqual(stillOpen.map(\.id), [order.id], "the expired order stays open while a charge waits without an order")

        // Bob logs in; the order store works again.
        failing.withLock { $0 = false }
        await relaunched.setCurrentUser("bob")
        await relaunched.retryPendingDeliveries()
        await relaunched.waitUntilIdle()
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["alice"], "the charge is the buyer's, not the logged-in user's")
        XCTAssertEqual(credits.map(\.orderID), [order.id])
        let bob = try await relaunched.entitlements(user: "bob")
        XCTAssertEqual(bob, [])
        let left = await world.store.unfinishedTransactions()
        XCTAssertEqual(left, [])
    }

    /// Two users' payments of one product went unanswered and expired; the
    /// store charged both, dated within the orders' window, but lost their
    /// tokens. Each charge could be either order's: it gets an order of its
    /// own, flagged for the app, and that order's save fails, at launch too.
    /// The launch comes after the matching window, yet the expired orders stay
    /// open while the charges wait unsaved. Archived, they could no longer be
    /// found for a tokenless charge, which the store replays later, once saves
    /// work again: it would go to whoever is logged in by then.
    func testTokenlessChargesWhoseFlaggedOrdersCouldNotBeSavedKeepTheExpiredOrdersOpenPastTheWindow() async throws {
        let world = World()
        let failing = Locked(true)
        struct StorageFailure: Error {}
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            guard failing.withLock({ $0 }), case .save(let order) = call, order.transactionID != nil else { return .proceed }
            return .fail(StorageFailure())
        }
        var configuration = world.configuration(store: orders)
        configuration.limits.paymentExpiry = 3600
        let first = try await world.engine(configuration)
        // The store charges both payments but tells the app nothing, and loses their tokens.
        await world.store.setHoldsUpdates(true)
        await world.store.setLosesOrderToken(true)
        let alice = Task { try await first.purchase(productID: Catalog.coins, user: "alice") }
        let carol = Task { try await first.purchase(productID: Catalog.coins, user: "carol") }
        await world.store.waitForPayments(count: 2)
        world.clock.advance(by: 3600)
        _ = await (alice.result, carol.result)
        await first.waitUntilIdle()
        let expired = await first.openOrders()
        XCTAssertEqual(expired.map(\.status), [.failed, .failed], "both payments expired")
        XCTAssertEqual(expired.map(\.isExpiredPayment), [true, true])
        let charged = await world.store.unfinishedTransactions()
        XCTAssertEqual(charged.count, 2, "both charges wait with the store")
        XCTAssertEqual(charged.map(\.orderToken), [nil, nil])
        await first.shutdown()
        await world.store.setHoldsUpdates(false)

        // Eight days later the app is launched; the store replays both
        // charges, and the order store still fails their saves.
        world.clock.advance(by: 8 * 24 * 3600)
        let relaunched = try await world.engine(configuration)
        let stillOpen = await relaunched.openOrders()
        XCTAssertEqual(stillOpen.map(\.id), expired.map(\.id),
                       "the expired orders stay open while a charge waits without a saved order")
        let waiting = await world.store.unfinishedTransactions()
        XCTAssertEqual(waiting.count, 2, "the charges wait with the store")

        // Bob logs in; the order store works again, and the store replays the charges.
        failing.withLock { $0 = false }
        await relaunched.setCurrentUser("bob")
        await relaunched.retryPendingDeliveries()
        await relaunched.waitUntilIdle()
        let credits = await world.server.allCredits
        XCTAssertEqual(credits, [], "neither charge is credited to the logged-in user")
        let bob = try await relaunched.consumableBalance(user: "bob")
        XCTAssertEqual(bob, [:])
        let flagged = await relaunched.openOrders().filter { $0.status == .needsAttention }
        XCTAssertEqual(Set(flagged.compactMap(\.transactionID)), Set(charged.map(\.id)),
                       "each charge waits on a flagged order for the app to assign")
        XCTAssertEqual(flagged.map(\.userID), ["", ""], "to nobody: it could be either user's")
    }

    /// The late charge's order is archived, and the order store cannot look
    /// it up by the charge's token when the charge comes: "could not read" is
    /// no "no such order". The charge waits with the store, unfinished and
    /// never flagged as nobody's, and goes to its buyer once the order store reads again.
    func testALateChargeWhoseOrderCannotBeLookedUpByTokenWaitsForItsOrder() async throws {
        let world = World()
        let unreadable = Locked(false)
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            call.name == .orderWithToken && unreadable.withLock({ $0 }) ? .fail(POSIXError(.EIO)) : .proceed
        }
        let engine = try await world.engine(world.configuration(store: orders))
        await world.store.scriptNextPurchase(.cancelsThenPays)
        let result = try await engine.purchase(productID: Catalog.pro, user: "alice")
        guard case .userCancelled(let cancelled) = result else { return XCTFail("\(result)") }
        await engine.waitUntilIdle()

        await engine.setCurrentUser("bob")
        unreadable.withLock { $0 = true }
        try await chargeTheLatePayment(world)
        await engine.waitUntilIdle()
        let flagged = await engine.openOrders().filter { $0.userID.isEmpty }
        XCTAssertEqual(flagged, [], "its order is known; it was only not read")
        let waiting = await world.store.unfinishedTransactions()
        XCTAssertEqual(waiting.count, 1, "the charge waits with the store")

        unreadable.withLock { $0 = false }
        await engine.retryPendingDeliveries()
        await engine.waitUntilIdle()
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["alice"])
        XCTAssertEqual(credits.map(\.orderID), [cancelled.id])
        let alice = try await engine.entitlements(user: "alice")
        XCTAssertEqual(alice.map(\.productID), [Catalog.pro])
        let left = await world.store.unfinishedTransactions()
        XCTAssertEqual(left, [])
    }

    /// The store charges the one payment it reported failed or cancelled.
    private func chargeTheLatePayment(_ world: World, file: StaticString = #filePath, line: UInt = #line) async throws {
        let late = await world.store.pendingLatePayments()
        XCTAssertEqual(late.count, 1, "one payment the store will still charge", file: file, line: line)
        let payment = try XCTUnwrap(late.first, file: file, line: line)
        try await world.store.completeLatePayment(id: payment.id)
    }
}
