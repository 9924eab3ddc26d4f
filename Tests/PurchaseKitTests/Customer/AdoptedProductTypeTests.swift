import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// An order made from a transaction no order waited for (bought on another
/// device, or started by the store) before the engine loaded its product
/// learns the product's type before its delivery is saved: customer info is
/// answered from the orders alone, and must not take coins for a lifetime
/// purchase.
final class AdoptedProductTypeTests: XCTestCase {
    func testACoinBoughtOutsideTheAppCountsAsCoinsAtTheNextLaunch() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setCurrentUser("alice")
        try await world.store.buyPromotedOutsideApp(productID: Catalog.coins)
        await engine.waitUntilIdle()
        await engine.shutdown()
        let stored = await world.orders.orders(forUser: "alice")
        XCTAssertEqual(stored.map(\.productType), [.consumable])

        let next = try await world.engine()
        let info = try await next.customerInfo(user: "alice")
        XCTAssertEqual(info.consumableBalances, [Catalog.coins: 1])
        XCTAssertEqual(info.entitlements.map(\.productID), [], "coins are no lifetime purchase")
    }
}
