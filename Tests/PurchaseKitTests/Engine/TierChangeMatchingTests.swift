import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// An upgrade whose payment lost its order token, through the simulated
/// store and the engine: it pays the order that asked for it, whoever bought
/// the subscription, and answers that order's purchase call.
final class TierChangeMatchingTests: XCTestCase {
    private typealias W = Catalog.Tiers

    /// Alice holds the basic tier; `user` upgrades to pro and the store loses
    /// the payment's token. Returns the upgrade's order as stored, once the
    /// engine is idle, and the purchase call's result.
    private func upgradeWithoutToken(by user: String) async throws -> (world: World, engine: PurchaseEngine, order: Order?, result: PurchaseResult?) {
        let world = World.tiers()
        let engine = try await world.engine()
        guard case .success = try await engine.purchase(productID: W.basic, user: "alice") else {
            XCTFail("alice's basic tier")
            return (world, engine, nil, nil)
        }
        await world.advance(by: 3, engine)
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true))
        let call = Task { try await engine.purchase(productID: W.pro, user: user) }
        await world.store.waitForPayments(count: 2)
        await engine.waitUntilIdle()
        let order = await world.orders.order(id: "order-2")
        // A call left waiting is answered by the shutdown instead of hanging the test.
        if order?.status != .completed { await engine.shutdown() }
        return (world, engine, order, try? await call.value)
    }

    func testTheSubscribersOwnUpgradeAnswersItsCall() async throws {
        let (world, engine, order, result) = try await upgradeWithoutToken(by: "alice")
        XCTAssertEqual(order?.productID, W.pro)
        XCTAssertEqual(order?.status, .completed, "the upgrade paid the order that asked for it")
        guard case .success(let answered) = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertEqual(answered.id, "order-2")
        let open = await engine.openOrders()
        XCTAssertEqual(open, [], "no second order was made for it")
        let credits = await world.server.credits(forTransactionID: try XCTUnwrap(order?.transactionID))
        XCTAssertEqual(credits.map(\.userID), ["alice"])
        let products = try await engine.entitlements(user: "alice").map(\.productID)
        XCTAssertEqual(products, [W.pro])
    }

    /// Two app users on one store account: bob upgrades alice's subscription.
    func testAnotherUsersUpgradeIsCreditedToThatUserNotToTheSubscriber() async throws {
        let (world, engine, order, result) = try await upgradeWithoutToken(by: "bob")
        XCTAssertEqual(order?.userID, "bob")
        XCTAssertEqual(order?.status, .completed)
        guard case .success = result else { return XCTFail("\(String(describing: result))") }
        let credits = await world.server.credits(forTransactionID: try XCTUnwrap(order?.transactionID))
        XCTAssertEqual(credits.map(\.userID), ["bob"], "bob paid for it; alice's purchase is only what it continues")
        let bobs = try await engine.entitlements(user: "bob").map(\.productID)
        XCTAssertEqual(bobs, [W.pro])
    }
}
