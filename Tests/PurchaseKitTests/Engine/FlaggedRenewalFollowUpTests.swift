import Foundation
import Synchronization
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// A renewal flagged because the purchase it renews had no known user yet (a
/// claim the server had not answered) follows that purchase's user once the
/// server accepts the claim, as it would have had it arrived then; a refused
/// claim leaves it for the app.
final class FlaggedRenewalFollowUpTests: XCTestCase {
    func testTheRenewalFollowsTheClaimsUserOnceTheServerAcceptsTheClaim() async throws {
        let world = World()
        let engine = try await world.engine()
        let (claim, renewal) = try await claimAndFlaggedRenewal(world, engine)
        let renewalID = try XCTUnwrap(renewal.transactionID)

        await world.server.clearScriptedFaults()
        await engine.retryPendingDeliveries()
        await engine.waitUntilIdle()

        let claimCredits = await world.server.credits(forTransactionID: try XCTUnwrap(claim.transactionID))
        XCTAssertEqual(claimCredits.map(\.userID), ["bob"])
        let renewalCredits = await world.server.credits(forTransactionID: renewalID)
        XCTAssertEqual(renewalCredits.map(\.userID), ["bob"], "credited once, to the claim's user")
        let followed = await world.orders.order(id: renewal.id)
        XCTAssertEqual(followed?.userID, "bob")
        XCTAssertEqual(followed?.status, .completed)
        XCTAssertEqual(renewal.source, .unknown, "flagged: nobody known to follow")
        XCTAssertEqual(followed?.source, .renewal, "as if bob had been known when it arrived")
        let open = await engine.openOrders()
        XCTAssertEqual(open, [], "nothing is left for the app to assign")
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished, [])

        // The next renewal follows bob at once.
        world.clock.advance(by: 31 * 86_400)
        await world.store.processRenewals()
        await engine.waitUntilIdle()
        let all = await world.server.credits(forUser: "bob")
        XCTAssertEqual(all.count, 3)
        XCTAssertEqual(Set(all.map(\.originalTransactionID)).count, 1)
    }

    func testARefusedClaimLeavesTheRenewalForTheApp() async throws {
        let world = World()
        let engine = try await world.engine()
        let (claim, renewal) = try await claimAndFlaggedRenewal(world, engine)
        await world.server.clearScriptedFaults()
        // The buyer's own device reached the server first.
        let transaction = try XCTUnwrap(claim.transaction)
        var buyersOrder = claim
        buyersOrder.id = "buyers-order"
        buyersOrder.userID = "carol"
        let verdict = try await world.server.verify(VerificationRequest(order: buyersOrder, transaction: transaction))
        XCTAssertEqual(verdict, .delivered)

        await engine.retryPendingDeliveries()
        await engine.waitUntilIdle()

        let refused = await world.orders.order(id: claim.id)
        XCTAssertEqual(refused?.status, .rejected)
        let open = await engine.openOrders()
        XCTAssertEqual(open.map(\.id), [renewal.id])
        XCTAssertEqual(open.first?.userID, "", "not bob's: the server refused his claim")
        XCTAssertEqual(open.first?.status, .needsAttention)
        let renewalCredits = await world.server.creditCount(transactionID: try XCTUnwrap(renewal.transactionID))
        XCTAssertEqual(renewalCredits, 0)
    }

    /// Killed after the claim's delivery was saved, before the follow-up ran:
    /// the next launch follows the renewal.
    func testALaunchFollowsARenewalWhoseFollowUpAKillInterrupted() async throws {
        let world = World()
        let first = try await world.engine()
        let (claim, renewal) = try await claimAndFlaggedRenewal(world, first)
        await first.shutdown()
        // What the killed process had saved: the claim delivered.
        let saved = await world.orders.order(id: claim.id)
        var delivered = try XCTUnwrap(saved)
        delivered.status = .delivered
        await world.orders.save(delivered)
        await world.server.clearScriptedFaults()

        let second = try await world.engine()
        await second.waitUntilIdle()
        let followed = await world.orders.order(id: renewal.id)
        XCTAssertEqual(followed?.userID, "bob")
        XCTAssertEqual(followed?.status, .completed)
        XCTAssertEqual(followed?.source, .renewal)
        let renewalCredits = await world.server.credits(forTransactionID: try XCTUnwrap(renewal.transactionID))
        XCTAssertEqual(renewalCredits.map(\.userID), ["bob"])
    }

    /// The follow-up at the claim's delivery could not save the renewal's
    /// user: the next retry trigger follows it, not only the next launch.
    func testARetryFollowsARenewalWhoseFollowUpCouldNotBeSaved() async throws {
        struct DiskFull: Error {}
        let world = World()
        let failing = Mutex<String?>(nil)
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            guard case .save(let order) = call, !order.userID.isEmpty,
                  failing.withLock({ $0 == order.id }) else { return .proceed }
            return .fail(DiskFull())
        }
        let engine = try await world.engine(world.configuration(store: orders))
        let (claim, renewal) = try await claimAndFlaggedRenewal(world, engine)
        failing.withLock { $0 = renewal.id }
        await world.server.clearScriptedFaults()

        await engine.retryPendingDeliveries()
        await engine.waitUntilIdle()
        let delivered = await world.orders.order(id: claim.id)
        XCTAssertEqual(delivered?.status, .completed)
        let stillFlagged = await world.orders.order(id: renewal.id)
        XCTAssertEqual(stillFlagged?.userID, "", "its assignment could not be saved")
        XCTAssertEqual(stillFlagged?.status, .needsAttention)

        failing.withLock { $0 = nil }
        let tried = await engine.retryPendingDeliveries()
        await engine.waitUntilIdle()
        XCTAssertEqual(tried.map(\.id), [renewal.id])
        let followed = await world.orders.order(id: renewal.id)
        XCTAssertEqual(followed?.userID, "bob")
        XCTAssertEqual(followed?.status, .completed)
        let renewalCredits = await world.server.credits(forTransactionID: try XCTUnwrap(renewal.transactionID))
        XCTAssertEqual(renewalCredits.map(\.userID), ["bob"])
        let open = await engine.openOrders()
        XCTAssertEqual(open, [])
    }
}

/// Bob is logged in when a purchase from another device arrives (an
/// `otherDevice` claim for bob); the server is down; the subscription
/// renews and the renewal is flagged. Returns the claim and the renewal.
func claimAndFlaggedRenewal(_ world: World, _ engine: PurchaseEngine) async throws -> (claim: Order, renewal: Order) {
    await engine.setCurrentUser("bob")
    await world.server.failNext(100, with: .serverError(statusCode: 503))
    try await SimulatedDevice(world: world).buy(Catalog.monthly)
    await engine.waitUntilIdle()
    let claims = await engine.openOrders()
    let claim = try XCTUnwrap(claims.first)
    XCTAssertEqual(claim.source, .otherDevice)
    world.clock.advance(by: 31 * 86_400)
    await engine.waitUntilIdle()
    await world.store.processRenewals()
    await engine.waitUntilIdle()
    let open = await engine.openOrders()
    let renewal = try XCTUnwrap(open.first { $0.id != claim.id })
    XCTAssertEqual(renewal.status, .needsAttention)
    XCTAssertEqual(renewal.userID, "")
    return (claim, renewal)
}
