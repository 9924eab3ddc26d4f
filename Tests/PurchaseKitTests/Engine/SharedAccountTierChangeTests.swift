import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Two app users on one store account: alice subscribes, then bob upgrades
/// the account's subscription, and the store loses the token of bob's
/// payment. The upgrade shares alice's original transaction id; the store
/// says it is a purchase (`TransactionReason.purchase`), so it pays bob's
/// order and every later renewal of the new tier follows bob, never alice.
final class SharedAccountTierChangeTests: XCTestCase {
    private typealias W = Catalog.Tiers

    /// Alice on basic, then bob's upgrade to pro with its token lost. Returns
    /// the engine, alice's basic order and bob's purchase result.
    private func bobUpgradesAlicesSubscription(_ world: World) async throws -> (PurchaseEngine, Order, PurchaseResult) {
        let engine = try await world.engine()
        guard case .success(let basic) = try await engine.purchase(productID: W.basic, user: "alice") else {
            XCTFail("alice's subscription was not bought")
            throw CancellationError()
        }
        await world.advance(by: 3, engine)
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true))
        let upgrade = try await engine.purchase(productID: W.pro, user: "bob")
        await engine.waitUntilIdle()
        return (engine, basic, upgrade)
    }

    func testAnUpgradeThatLostItsTokenIsCreditedToTheUserWhoPaidForIt() async throws {
        let world = World.tiers()
        let (engine, basic, upgrade) = try await bobUpgradesAlicesSubscription(world)
        guard case .success(let bobs) = upgrade else { return XCTFail("bob's upgrade: \(upgrade)") }
        let transaction = try XCTUnwrap(bobs.transaction)
        XCTAssertNil(transaction.orderToken, "the store lost the token")
        XCTAssertEqual(transaction.originalID, basic.transaction?.originalID, "the same subscription as alice's")
        XCTAssertEqual(transaction.reason, .purchase)
        XCTAssertEqual(bobs.userID, "bob")
        XCTAssertEqual(bobs.source, .purchase, "bob's own order, not one made for a renewal")

        let alices = await world.orders.orders(forUser: "alice")
        XCTAssertEqual(alices.map(\.id), [basic.id], "alice gets no order for bob's payment")
        let credits = await world.server.credits(forTransactionID: transaction.id)
        XCTAssertEqual(credits.map(\.userID), ["bob"], "credited once, to bob")
        let bobsProducts = try await engine.entitlements(user: "bob").map(\.productID)
        XCTAssertEqual(bobsProducts, [W.pro])
    }

    func testTheNewTiersRenewalsFollowTheUserWhoChangedIt() async throws {
        let world = World.tiers()
        let (engine, _, upgrade) = try await bobUpgradesAlicesSubscription(world)
        guard case .success(let bobs) = upgrade else { return XCTFail("bob's upgrade: \(upgrade)") }
        let end = try XCTUnwrap(bobs.transaction?.expirationDate)
        await world.advance(by: end.timeIntervalSince(world.clock.now) + 1, engine)

        let renewals = await world.orders.orders(forUser: "bob").filter { $0.id != bobs.id }
        XCTAssertEqual(renewals.count, 1)
        XCTAssertEqual(renewals.first?.source, .renewal)
        XCTAssertEqual(renewals.first?.status, .completed)
        XCTAssertEqual(renewals.first?.transaction?.reason, .renewal)
        XCTAssertEqual(renewals.first?.productID, W.pro)
        let alices = await world.orders.orders(forUser: "alice")
        XCTAssertEqual(alices.count, 1, "nothing of bob's tier reaches alice")
        let flagged = await world.orders.loadOpenOrders().orders.filter { $0.status == .needsAttention }
        XCTAssertEqual(flagged, [])
    }
}
