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

    func testAnotherUsersUpgradeEndsTheFirstBuyersPlanAtOnce() async throws {
        let world = World.tiers()
        let engine = try await world.engine()
        guard case .success(let alices) = try await engine.purchase(productID: W.basic, user: "alice") else {
            return XCTFail("alice's subscription was not bought")
        }
        var alicesProducts = try await engine.entitlements(user: "alice").map(\.productID)
        XCTAssertEqual(alicesProducts, [W.basic])
        await world.advance(by: 3, engine)
        guard case .success(let bobs) = try await engine.purchase(productID: W.pro, user: "bob") else {
            return XCTFail("bob's upgrade was not bought")
        }
        let change = try XCTUnwrap(bobs.transaction)
        XCTAssertEqual(change.originalID, alices.transaction?.id, "bob upgraded alice's subscription")

        // The store now charges for bob's tier: alice's plan ended at his upgrade.
        alicesProducts = try await engine.entitlements(user: "alice").map(\.productID)
        XCTAssertEqual(alicesProducts, [])
        let bobsProducts = try await engine.entitlements(user: "bob").map(\.productID)
        XCTAssertEqual(bobsProducts, [W.pro])
        let alicesStatus = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(alicesStatus[W.group], .expired)
        let bobsStatus = try await engine.subscriptionStatus(user: "bob")
        XCTAssertEqual(bobsStatus[W.group], .subscribed)
        let info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.entitlements, [])
        XCTAssertEqual(info.subscriptions[W.group]?.status, .expired)
        XCTAssertEqual(info.subscriptions[W.group]?.productID, W.basic, "her own plan, ended")
        XCTAssertEqual(info.subscriptions[W.group]?.expirationDate, change.purchaseDate)
        XCTAssertEqual(info.subscriptions[W.group]?.willAutoRenew, false)
        let bobsInfo = try await engine.customerInfo(user: "bob")
        XCTAssertEqual(bobsInfo.entitlements.map(\.productID), [W.pro])
        XCTAssertEqual(bobsInfo.subscriptions[W.group]?.status, .subscribed)
    }

    func testAnotherUsersDowngradeEndsTheFirstBuyersPlanAtTheRenewalDateOnly() async throws {
        let world = World.tiers()
        let engine = try await world.engine()
        guard case .success(let alices) = try await engine.purchase(productID: W.pro, user: "alice") else {
            return XCTFail("alice's subscription was not bought")
        }
        let renewal = try XCTUnwrap(alices.transaction?.expirationDate)
        let downgrade = try await engine.purchase(productID: W.basic, user: "bob")
        guard case .pending(_, .subscriptionChangeScheduled) = downgrade else { return XCTFail("\(downgrade)") }
        var alicesProducts = try await engine.entitlements(user: "alice").map(\.productID)
        XCTAssertEqual(alicesProducts, [W.pro], "nothing changes before the renewal date")

        await world.advance(by: renewal.timeIntervalSince(world.clock.now) + 1, engine)
        alicesProducts = try await engine.entitlements(user: "alice").map(\.productID)
        XCTAssertEqual(alicesProducts, [])
        let bobsProducts = try await engine.entitlements(user: "bob").map(\.productID)
        XCTAssertEqual(bobsProducts, [W.basic])
        let info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.subscriptions[W.group]?.status, .expired)
        XCTAssertEqual(info.subscriptions[W.group]?.expirationDate, renewal)
    }

    func testEntitlementsThatCannotLookForOtherUsersChangesFailAsAReadFailure() async throws {
        let world = World.tiers()
        let fails = Locked(false)
        let store = InterceptingOrderStore(wrapping: world.orders) { call in
            call.name == .ordersOfPurchase && fails.withLock({ $0 }) ? .fail(POSIXError(.EIO)) : .proceed
        }
        let engine = try await world.engine(world.configuration(store: store))
        guard case .success = try await engine.purchase(productID: W.basic, user: "alice") else {
            return XCTFail("alice's subscription was not bought")
        }
        fails.withLock { $0 = true }
        // Whether another user ended alice's plan is not known: no answer
        // rather than an entitlement she may no longer have.
        await assertThrows(.persistenceReadFailed) { _ = try await engine.entitlements(user: "alice") }
        await assertThrows(.persistenceReadFailed) { _ = try await engine.subscriptionStatus(user: "alice") }
        await assertThrows(.persistenceReadFailed) { _ = try await engine.customerInfo(user: "alice") }
        // Nothing to look for without a subscription.
        let bobs = try await engine.entitlements(user: "bob")
        XCTAssertEqual(bobs, [])
        fails.withLock { $0 = false }
        let alices = try await engine.entitlements(user: "alice").map(\.productID)
        XCTAssertEqual(alices, [W.basic])
    }

    func testTheThreeAnswersAgreeOnPlansAnotherUserEnded() async throws {
        let world = World.tiers()
        let now = world.clock.now
        let day: TimeInterval = 86_400
        // Archived orders, as a store holds them after months of use.
        func archive(_ id: String, user: String, product: String, original: String, at offset: TimeInterval,
                     refunded: Bool = false) async throws {
            var order = Order(id: id, productID: product, userID: user, productType: .autoRenewable, subscriptionGroupID: W.group,
                              status: refunded ? .revoked : .completed, createdAt: now.addingTimeInterval(offset))
            order.transaction = StoreTransaction(id: "t-\(id)", originalID: original, productID: product,
                                                 purchaseDate: now.addingTimeInterval(offset),
                                                 expirationDate: now.addingTimeInterval(offset + 30 * day),
                                                 revocationDate: refunded ? now.addingTimeInterval(offset + 60) : nil)
            await world.orders.save(order)
            try await world.orders.archive(orderID: id)
        }
        // alice: a plan on her own store account, then one on the shared
        // account, which bob changes: her own runs on.
        try await archive("alice-own", user: "alice", product: W.basic, original: "t-alice-own", at: -20 * day)
        try await archive("alice-shared", user: "alice", product: W.basic, original: "t-alice-shared", at: -10 * day)
        try await archive("bob-change", user: "bob", product: W.pro, original: "t-alice-shared", at: -day)
        // carol: a plan refunded, then changed by bob: refunded it stays.
        try await archive("carol", user: "carol", product: W.basic, original: "t-carol", at: -10 * day, refunded: true)
        try await archive("bob-carols", user: "bob", product: W.pro, original: "t-carol", at: -day)
        let engine = try await world.engine()

        let alices = try await engine.entitlements(user: "alice").map(\.orderID)
        XCTAssertEqual(alices, ["alice-own"])
        var status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status[W.group], .subscribed)
        var info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.entitlements.map(\.orderID), ["alice-own"])
        XCTAssertEqual(info.subscriptions[W.group]?.status, .subscribed)

        let carols = try await engine.entitlements(user: "carol")
        XCTAssertEqual(carols, [])
        status = try await engine.subscriptionStatus(user: "carol")
        XCTAssertEqual(status[W.group], .revoked)
        info = try await engine.customerInfo(user: "carol")
        XCTAssertEqual(info.subscriptions[W.group]?.status, .revoked)
    }
}
