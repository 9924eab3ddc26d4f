import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Auto-renewable subscriptions over months, through the engine and the simulated store:
/// renewals after a reinstall, a restore, a user switch and a relaunch.
final class SubscriptionOverTimeTests: XCTestCase {
    private let month: TimeInterval = 31 * 86_400

    func testARenewalOfASubscriptionRestoredOnANewDeviceGoesToTheRestoringUser() async throws {
        let world = World()
        let first = try await world.engine()
        guard case .success = try await first.purchase(productID: Catalog.monthly, user: "alice") else { return XCTFail() }
        await world.advance(by: month, first)
        await first.shutdown()

        // A new device: an empty order store; alice restores, then the subscription renews.
        let orders = InMemoryOrderStore()
        let engine = try await world.engine(world.configuration(store: orders))
        let restored = try await engine.restorePurchases(user: "alice")
        XCTAssertEqual(restored.restoredProductIDs, [Catalog.monthly])
        await world.advance(by: month, engine)

        let transactions = await world.store.allTransactions()
        let latest = try XCTUnwrap(transactions.last)
        let renewal = await orders.order(transactionID: latest.id)
        XCTAssertEqual(renewal?.userID, "alice", "the restored subscription's renewal follows its user")
        XCTAssertTrue(renewal?.status == .completed || renewal?.status == .delivered, "\(String(describing: renewal?.status))")
        let entitled = try await engine.entitlements(user: "alice").map(\.productID)
        XCTAssertEqual(entitled, [Catalog.monthly], "paid, so entitled")
        let credits = await world.server.creditCount(transactionID: latest.id)
        XCTAssertEqual(credits, 1)
    }

    func testARenewalOfASubscriptionWhoseRestoreTheServerRefusedIsNotCreditedToTheRestorer() async throws {
        let world = World()
        let first = try await world.engine()
        guard case .success = try await first.purchase(productID: Catalog.monthly, user: "alice") else { return XCTFail() }
        await world.advance(by: month, first)
        await first.shutdown()

        // Bob restores alice's subscription on a new device: the server refuses it.
        let orders = InMemoryOrderStore()
        let engine = try await world.engine(world.configuration(store: orders))
        let restored = try await engine.restorePurchases(user: "bob")
        XCTAssertEqual(restored.failures.map(\.error.code), [.verificationRejected])
        await world.advance(by: month, engine)

        let transactions = await world.store.allTransactions()
        let latest = try XCTUnwrap(transactions.last)
        let renewal = await orders.order(transactionID: latest.id)
        XCTAssertNotEqual(renewal?.userID, "bob", "a refused restore proves no ownership")
        let credits = await world.server.creditCount(transactionID: latest.id)
        XCTAssertEqual(credits, 0)
        let entitled = try await engine.entitlements(user: "bob")
        XCTAssertEqual(entitled, [])
    }
}
