import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Auto-renewable subscriptions over months, through the engine and the simulated store:
/// renewals after a reinstall, a restore, a user switch and a relaunch.
final class SubscriptionOverTimeTests: XCTestCase {
    private let month: TimeInterval = 31 * 86_400

    /// Alice subscribes and renews once on her first device; then an engine on
    /// a new device, with an empty order store of its own.
    private func aliceRenewedOnceThenANewDevice(_ world: World) async throws -> (PurchaseEngine, InMemoryOrderStore) {
        let first = try await world.engine()
        let result = try await first.purchase(productID: Catalog.monthly, user: "alice")
        guard case .success = result else {
            XCTFail("the first purchase did not succeed: \(result)")
            throw XCTSkip("setup failed")
        }
        await world.advance(by: month, first)
        await first.shutdown()
        let orders = InMemoryOrderStore()
        return (try await world.engine(world.configuration(store: orders)), orders)
    }

    /// The store's latest transaction, and the new device's order holding it.
    private func latestRenewal(_ world: World, _ orders: InMemoryOrderStore) async throws -> (StoreTransaction, Order?) {
        let transactions = await world.store.allTransactions()
        let latest = try XCTUnwrap(transactions.last)
        return (latest, await orders.order(transactionID: latest.id))
    }

    func testARenewalOfASubscriptionRestoredOnANewDeviceGoesToTheRestoringUser() async throws {
        let world = World()
        // A new device: an empty order store; alice restores, then the subscription renews.
        let (engine, orders) = try await aliceRenewedOnceThenANewDevice(world)
        let restored = try await engine.restorePurchases(user: "alice")
        XCTAssertEqual(restored.restoredProductIDs, [Catalog.monthly])
        await world.advance(by: month, engine)

        let (latest, renewal) = try await latestRenewal(world, orders)
        XCTAssertEqual(renewal?.userID, "alice", "the restored subscription's renewal follows its user")
        XCTAssertTrue(renewal?.status == .completed || renewal?.status == .delivered, "\(String(describing: renewal?.status))")
        let entitled = try await engine.entitlements(user: "alice").map(\.productID)
        XCTAssertEqual(entitled, [Catalog.monthly], "paid, so entitled")
        let credits = await world.server.creditCount(transactionID: latest.id)
        XCTAssertEqual(credits, 1)
    }

    func testARenewalOfASubscriptionWhoseRestoreTheServerRefusedIsNotCreditedToTheRestorer() async throws {
        let world = World()
        // Bob restores alice's subscription on a new device: the server refuses it.
        let (engine, orders) = try await aliceRenewedOnceThenANewDevice(world)
        let restored = try await engine.restorePurchases(user: "bob")
        XCTAssertEqual(restored.failures.map(\.error.code), [.verificationRejected])
        await world.advance(by: month, engine)

        let (latest, renewal) = try await latestRenewal(world, orders)
        XCTAssertNotEqual(renewal?.userID, "bob", "a refused restore proves no ownership")
        let credits = await world.server.creditCount(transactionID: latest.id)
        XCTAssertEqual(credits, 0)
        let entitled = try await engine.entitlements(user: "bob")
        XCTAssertEqual(entitled, [])
    }
}
