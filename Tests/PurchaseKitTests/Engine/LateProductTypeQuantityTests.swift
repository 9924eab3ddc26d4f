import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// A transaction adopted before the engine loaded its product: the product's
/// type, learned just before the delivery, decides which quantities are possible.
final class LateProductTypeQuantityTests: XCTestCase {
    /// Two units of a non-consumable, bought on another device, reach an engine
    /// that has not loaded the catalog. Adopted with no product type, the
    /// quantity passed the check every type shares; the delivery then learned
    /// the type and asked the server anyway, which credited both units, and
    /// the machine refused the server's answer: the order rested `purchased`,
    /// credited, with no retry scheduled and nothing flagged.
    func testAnImpossibleQuantityFoundOnceTheProductIsKnownIsHeldNotCredited() async throws {
        let world = World()
        let engine = try await world.engine()
        let events = await EventLog(engine)
        await engine.setCurrentUser("carol")
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true, transactionQuantity: 2))
        try await world.store.add(Payment(productID: Catalog.pro, orderToken: "token-of-another-device", userID: "someone"))
        await engine.waitUntilIdle()

        let orders = await world.orders.orders(forUser: "carol")
        XCTAssertEqual(orders.map(\.status), [.needsAttention])
        XCTAssertEqual(orders.map(\.lastErrorCode), [.invalidQuantity])
        XCTAssertEqual(orders.map(\.productType), [.nonConsumable], "saved with what was learned")
        let credits = await world.server.allCredits
        XCTAssertEqual(credits, [], "never credited")
        if orders.first?.status == .needsAttention {
            await events.waitForEvent { if case .needsAttention = $0 { return true }; return false }
        }
        let entitlements = try await engine.entitlements(user: "carol")
        XCTAssertEqual(entitlements, [])
        await events.stop()
    }

    /// A possible quantity still goes through: the learned type changes nothing.
    func testAPossibleQuantityIsDeliveredOnceTheProductIsKnown() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setCurrentUser("carol")
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true, transactionQuantity: 3))
        try await world.store.add(Payment(productID: Catalog.coins, orderToken: "token-of-another-device", userID: "someone"))
        await engine.waitUntilIdle()

        let orders = await world.orders.orders(forUser: "carol")
        XCTAssertEqual(orders.map(\.status), [.completed])
        XCTAssertEqual(orders.map(\.productType), [.consumable])
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.quantity), [3])
    }
}
