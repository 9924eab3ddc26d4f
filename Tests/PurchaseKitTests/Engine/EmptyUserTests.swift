import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// An empty user id names nobody. A purchase credited to nobody rests
/// `purchased`, owed a delivery no retry makes, held by an order no later
/// restore of its real owner can take over: the user's paid purchase would
/// be missing from their entitlements. So an empty id is refused where the
/// app passes it, and never becomes the owner of a new order.
final class EmptyUserTests: XCTestCase {
    /// Alice bought Pro on her first device; the new device has no orders.
    private func newDeviceOfAlice() async throws -> (World, PurchaseEngine) {
        let world = World()
        let firstDevice = try await world.engine()
        _ = try await firstDevice.purchase(productID: Catalog.pro, user: "alice")
        await firstDevice.shutdown()
        return (world, try await world.engine(world.configuration(store: InMemoryOrderStore())))
    }

    func testARestoreForAnEmptyUserIsRefusedAndTheOwnersRestoreStillDelivers() async throws {
        let (_, engine) = try await newDeviceOfAlice()
        await assertThrows(.invalidConfiguration) { _ = try await engine.restorePurchases(user: "") }
        let orphans = await engine.openOrders()
        XCTAssertEqual(orphans, [], "nothing was made for nobody")

        let result = try await engine.restorePurchases(user: "alice")
        XCTAssertEqual(result.delivered.map(\.productID), [Catalog.pro])
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.pro])
    }

    func testAPurchaseFromElsewhereWithAnEmptyCurrentUserWaitsForAssignment() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setCurrentUser("")
        try await world.store.buyPromotedOutsideApp(productID: Catalog.pro)
        await engine.waitUntilIdle()
        let open = await engine.openOrders()
        XCTAssertEqual(open.map(\.status), [.needsAttention], "flagged for the app, as with nobody logged in")
        let order = try XCTUnwrap(open.first)
        try await engine.assign(orderID: order.id, toUser: "alice")
        await engine.waitUntilIdle()
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.pro])
    }
}
