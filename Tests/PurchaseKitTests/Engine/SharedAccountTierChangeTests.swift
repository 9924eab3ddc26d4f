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

    /// Refuses every receipt of bob's, as a server does with one it finds
    /// forged, and asks the world's server about the rest.
    private struct RefusesBobsReceipts: ReceiptVerifier {
        let server: SimulatedReceiptServer
        func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
            if request.order.userID == "bob" { return .invalid(reason: "the receipt's signature does not match") }
            return try await server.verify(request)
        }
    }

    func testARenewalOnAPaymentWhoseReceiptWasRefusedNeverReachesTheTiersEarlierUser() async throws {
        let world = World.tiers()
        let engine = try await world.engine(world.configuration(verifier: RefusesBobsReceipts(server: world.server)))
        guard case .success(let alicesPro) = try await engine.purchase(productID: W.pro, user: "alice") else {
            return XCTFail("alice's subscription was not bought")
        }
        // alice moves down to basic at the renewal date; that transaction is
        // late to reach this device.
        let downgrade = try await engine.purchase(productID: W.basic, user: "alice")
        guard case .pending(_, .subscriptionChangeScheduled) = downgrade else { return XCTFail("\(downgrade)") }
        let periodEnd = try XCTUnwrap(alicesPro.transaction?.expirationDate)
        await world.store.setHoldsUpdates(true)
        await world.advance(by: periodEnd.timeIntervalSince(world.clock.now) + 1, engine)
        let held = await world.store.heldUpdateCount()
        XCTAssertEqual(held, 1, "alice's basic tier is held back")
        await world.store.setHoldsUpdates(false)

        // bob upgrades the account back to pro at once: the store loses his
        // token, his order is matched by time, and the server refuses it.
        await world.advance(by: 3, engine)
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true))
        do {
            let refused = try await engine.purchase(productID: W.pro, user: "bob")
            XCTFail("bob's receipt was refused, yet: \(refused)")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .verificationRejected)
        }
        await engine.waitUntilIdle()
        let bobs = await world.orders.orders(forUser: "bob")
        XCTAssertEqual(bobs.map(\.status), [.rejected])
        let bobsPayment = try XCTUnwrap(bobs.first?.transaction)
        XCTAssertEqual(bobsPayment.originalID, alicesPro.transaction?.id, "a change within alice's subscription")
        XCTAssertEqual(bobsPayment.productID, W.pro)
        XCTAssertNil(bobsPayment.orderToken)

        // The pro tier renews on bob's payment: the store charges for his
        // tier, whatever the server made of his receipt.
        let end = try XCTUnwrap(bobsPayment.expirationDate)
        await world.advance(by: end.timeIntervalSince(world.clock.now) + 1, engine)
        let known: Set = [alicesPro.transaction?.id, bobsPayment.id]
        let all = await world.orders.loadOpenOrders().orders + world.orders.archivedOrders()
        let renewals = all.filter { $0.productID == W.pro && $0.transaction != nil && !known.contains($0.transaction?.id) }
        XCTAssertEqual(renewals.count, 1, "one renewal of the pro tier")
        XCTAssertEqual(renewals.first?.status, .needsAttention, "flagged for the app to assign")
        XCTAssertEqual(renewals.first?.userID, "", "nobody's until the app assigns it")
        let alicesPros = await world.orders.orders(forUser: "alice").filter { $0.productID == W.pro }
        XCTAssertEqual(alicesPros.map(\.id), [alicesPro.id], "never alice's by way of her first pro tier")
    }
}
