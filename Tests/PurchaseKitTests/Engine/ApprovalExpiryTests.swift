import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// A purchase waiting for approval (Ask to Buy) that nobody answers: the
/// store sends nothing when the request expires, so the order rests as
/// `failed` after `approvalExpiry` instead of waiting for ever. An approval
/// that still comes is delivered to the order's user all the same.
final class ApprovalExpiryTests: XCTestCase {
    private func configuration(_ world: World, approvalExpiry: TimeInterval?) -> PurchaseEngine.Configuration {
        var configuration = world.configuration()
        configuration.limits.approvalExpiry = approvalExpiry
        return configuration
    }

    private func askToBuy(_ world: World, _ engine: PurchaseEngine) async throws -> Order {
        await world.store.scriptNextPurchase(.askToBuy)
        let result = try await engine.purchase(productID: Catalog.pro, user: "kid")
        guard case .pending(let order, .awaitingApproval) = result else {
            XCTFail("\(result)")
            throw CancellationError()
        }
        return order
    }

    func testARequestNobodyAnswersExpiresAndALateApprovalIsStillDelivered() async throws {
        let world = World()
        let engine = try await world.engine(configuration(world, approvalExpiry: 48 * 3600))
        let order = try await askToBuy(world, engine)

        // The payment's own expiry (24 hours by default) does not end the wait.
        world.clock.advance(by: 47 * 3600)
        await engine.waitUntilIdle()
        var stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .deferred)

        world.clock.advance(by: 3600)
        await engine.waitUntilIdle()
        stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .failed)
        XCTAssertEqual(stored?.lastErrorCode, .timeout)
        XCTAssertNil(stored?.storeFailureReason, "nobody declined it")
        XCTAssertTrue(stored?.hint?.contains("approval") == true, "\(String(describing: stored?.hint))")
        var entitlements = try await engine.entitlements(user: "kid")
        XCTAssertEqual(entitlements, [])

        // The organizer approves after all: the kid gets it, once.
        let pending = await world.store.pendingAskToBuy()
        try await world.store.approveAskToBuy(id: try XCTUnwrap(pending.first).id)
        await engine.waitUntilIdle()
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["kid"])
        XCTAssertEqual(credits.map(\.orderID), [order.id])
        entitlements = try await engine.entitlements(user: "kid")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.pro])
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished, [])
    }

    /// The wait is counted from the payment's start, across launches.
    func testARequestStillWaitingAtLaunchExpiresWhenItsTimeComes() async throws {
        let world = World()
        let first = try await world.engine(configuration(world, approvalExpiry: 48 * 3600))
        let order = try await askToBuy(world, first)
        await first.shutdown()

        world.clock.advance(by: 40 * 3600)
        let second = try await world.engine(configuration(world, approvalExpiry: 48 * 3600))
        await second.waitUntilIdle()
        var stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .deferred)

        world.clock.advance(by: 8 * 3600)
        await second.waitUntilIdle()
        stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .failed)
    }

    /// A purchase interrupted for the user's action at the store (accepting
    /// new terms, say) that nobody completes expires the same way.
    func testAnInterruptedPurchaseNobodyCompletesExpiresAndIsDeliveredIfCompletedLater() async throws {
        let world = World()
        let engine = try await world.engine(configuration(world, approvalExpiry: 48 * 3600))
        await world.store.scriptNextPurchase(.interrupted)
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .pending(let order, .actionRequired) = result else { return XCTFail("\(result)") }
        world.clock.advance(by: 48 * 3600)
        await engine.waitUntilIdle()
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .failed)
        XCTAssertEqual(stored?.lastErrorCode, .timeout)

        let interrupted = await world.store.pendingInterrupted()
        try await world.store.completeInterruptedPurchase(id: try XCTUnwrap(interrupted.first).id)
        await engine.waitUntilIdle()
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["alice"])
        XCTAssertEqual(credits.map(\.orderID), [order.id])
    }

    /// A subscription's deferred payment may be a change the store scheduled
    /// for the renewal date, a month away: it does not expire, and the new
    /// product begins on that date.
    func testAScheduledSubscriptionChangeDoesNotExpireBeforeTheRenewalDate() async throws {
        let world = World.tiers(fast: false)
        let engine = try await world.engine(configuration(world, approvalExpiry: 3600))
        let first = try await engine.purchase(productID: Catalog.Tiers.pro, user: "alice")
        guard case .success(let proOrder) = first else { return XCTFail("\(first)") }
        let renewal = try XCTUnwrap(proOrder.transaction?.expirationDate)
        let downgrade = try await engine.purchase(productID: Catalog.Tiers.basic, user: "alice")
        guard case .pending(let order, .subscriptionChangeScheduled) = downgrade else { return XCTFail("\(downgrade)") }

        await world.advance(by: 7 * 86_400, engine)
        var stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .deferred)
        await world.advance(by: renewal.timeIntervalSince(world.clock.now) + 1, engine)
        stored = await world.orders.order(id: order.id)
        XCTAssertTrue(stored?.status == .completed || stored?.status == .delivered, "\(String(describing: stored?.status))")
        XCTAssertEqual(stored?.transaction?.purchaseDate, renewal)
    }

    func testWithoutAnApprovalExpiryTheOrderWaitsForEver() async throws {
        let world = World()
        let engine = try await world.engine(configuration(world, approvalExpiry: nil))
        let order = try await askToBuy(world, engine)
        world.clock.advance(by: 365 * 86_400)
        await engine.waitUntilIdle()
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .deferred)
    }

    func testAnApprovalExpiryThatIsNotPositiveIsRefused() {
        let world = World()
        for bad in [0, -1, TimeInterval.nan] {
            XCTAssertThrowsError(try PurchaseEngine(configuration: configuration(world, approvalExpiry: bad)), "\(bad)") { error in
                XCTAssertEqual((error as? PurchaseKitError)?.keyPath, "limits.approvalExpiry")
            }
        }
    }
}
