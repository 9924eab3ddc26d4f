import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// The engine over upgrades, downgrades, offers and offer codes in the simulated store.
final class PurchaseEngineSubscriptionChangeTests: XCTestCase {
    private typealias W = Catalog.Tiers

    private func entitled(_ engine: PurchaseEngine, _ user: String = "alice") async throws -> [String] {
        try await engine.entitlements(user: user).map(\.productID)
    }

    func testAfterAnUpgradeOnlyTheNewProductIsEntitledAndRestoreAgrees() async throws {
        let world = World.tiers()
        let engine = try await world.engine()
        guard case .success = try await engine.purchase(productID: W.basic, user: "alice") else { return XCTFail() }
        await world.advance(by: 3, engine)
        let upgrade = try await engine.purchase(productID: W.pro, user: "alice")
        guard case .success(let order) = upgrade else { return XCTFail("\(upgrade)") }
        XCTAssertEqual(order.productID, W.pro)
        var products = try await entitled(engine)
        XCTAssertEqual(products, [W.pro])
        let status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status[W.group], .subscribed)

        let restored = try await engine.restorePurchases(user: "alice")
        XCTAssertEqual(restored.restoredProductIDs, [W.pro])
        products = try await entitled(engine)
        XCTAssertEqual(products, [W.pro], "restore does not bring the upgraded product back")

        // On a new device (an empty order store) a restore finds only the new product too.
        let fresh = try await world.engine(world.configuration(store: InMemoryOrderStore()))
        _ = try await fresh.restorePurchases(user: "alice")
        let freshProducts = try await fresh.entitlements(user: "alice").map(\.productID)
        XCTAssertEqual(freshProducts, [W.pro])
    }

    func testARefundedUpgradeDoesNotBringBackThePlanItReplaced() async throws {
        let world = World.tiers()
        let engine = try await world.engine()
        guard case .success = try await engine.purchase(productID: W.basic, user: "alice") else { return XCTFail() }
        await world.advance(by: 2, engine)
        guard case .success(let pro) = try await engine.purchase(productID: W.pro, user: "alice") else { return XCTFail() }
        try await world.store.refund(transactionID: try XCTUnwrap(pro.transaction?.id))
        await engine.waitUntilIdle()
        let stored = await world.orders.order(id: pro.id)
        XCTAssertEqual(stored?.status, .revoked)
        let products = try await entitled(engine)
        XCTAssertEqual(products, [], "the basic plan's rest was refunded at the upgrade")
        let status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status[W.group], .revoked)
    }

    func testADowngradeKeepsTheOldProductUntilTheRenewalDateThenTheNewOne() async throws {
        let world = World.tiers()
        let engine = try await world.engine()
        guard case .success(let proOrder) = try await engine.purchase(productID: W.pro, user: "alice") else { return XCTFail() }
        let renewal = try XCTUnwrap(proOrder.transaction?.expirationDate)
        let downgrade = try await engine.purchase(productID: W.basic, user: "alice")
        guard case .pending(let basicOrder, .subscriptionChangeScheduled) = downgrade else { return XCTFail("\(downgrade)") }
        XCTAssertEqual(basicOrder.status, .deferred)
        XCTAssertNil(basicOrder.transaction)
        var products = try await entitled(engine)
        XCTAssertEqual(products, [W.pro], "the downgrade grants nothing before the renewal date")

        await world.advance(by: renewal.timeIntervalSince(world.clock.now) - 1, engine)
        products = try await entitled(engine)
        XCTAssertEqual(products, [W.pro])

        await world.advance(by: 2, engine)
        products = try await entitled(engine)
        XCTAssertEqual(products, [W.basic], "the new product begins at the renewal date")
        let delivered = await world.orders.order(id: basicOrder.id)
        XCTAssertEqual(delivered?.transaction?.purchaseDate, renewal)
        XCTAssertTrue(delivered?.status == .completed || delivered?.status == .delivered, "\(String(describing: delivered?.status))")
        let credits = await world.server.creditCount(transactionID: try XCTUnwrap(delivered?.transaction?.id))
        XCTAssertEqual(credits, 1)
    }

    func testADowngradeWhoseOrderExpiredIsStillCreditedAtTheRenewalDate() async throws {
        let world = World.tiers(fast: false)
        let engine = try await world.engine()
        guard case .success = try await engine.purchase(productID: W.pro, user: "alice") else { return XCTFail() }
        guard case .pending(let basicOrder, _) = try await engine.purchase(productID: W.basic, user: "alice") else { return XCTFail() }
        // Well past the engine's payment expiry (a day), then past the renewal date.
        await world.advance(by: 2 * 86_400, engine)
        await world.advance(by: 31 * 86_400, engine)
        let products = try await entitled(engine)
        XCTAssertEqual(products, [W.basic])
        let order = await world.orders.order(id: basicOrder.id)
        XCTAssertEqual(order?.userID, "alice")
        XCTAssertNotNil(order?.transaction)
    }

    func testADowngradeSurvivesARelaunchBeforeTheRenewalDate() async throws {
        let world = World.tiers()
        var engine: PurchaseEngine? = try await world.engine()
        guard case .success(let proOrder)? = try await engine?.purchase(productID: W.pro, user: "alice") else { return XCTFail() }
        guard case .pending(let basicOrder, .subscriptionChangeScheduled)? = try await engine?.purchase(productID: W.basic, user: "alice")
        else { return XCTFail() }
        engine = nil   // the app is killed while the change waits

        let relaunched = try await world.engine()
        let renewal = try XCTUnwrap(proOrder.transaction?.expirationDate)
        await world.advance(by: renewal.timeIntervalSince(world.clock.now) + 1, relaunched)
        let products = try await entitled(relaunched)
        XCTAssertEqual(products, [W.basic])
        let order = await world.orders.order(id: basicOrder.id)
        XCTAssertEqual(order?.status, .completed)
        let credits = await world.server.creditCount(transactionID: try XCTUnwrap(order?.transaction?.id))
        XCTAssertEqual(credits, 1)
    }

    func testIntroOfferEligibilityFollowsTheUserAndTheAccount() async throws {
        let world = World.tiers()
        let engine = try await world.engine()
        var eligible = try await engine.isEligibleForIntroOffer(groupID: W.group, user: "alice")
        XCTAssertTrue(eligible)
        guard case .success(let order) = try await engine.purchase(productID: W.basic, user: "alice") else { return XCTFail() }
        let trial = try XCTUnwrap(order.transaction)
        XCTAssertEqual(try XCTUnwrap(trial.expirationDate).timeIntervalSince(trial.purchaseDate), 7, accuracy: 0.001)
        eligible = try await engine.isEligibleForIntroOffer(groupID: W.group, user: "alice")
        XCTAssertFalse(eligible)
        eligible = try await engine.isEligibleForIntroOffer(groupID: W.group, user: "bob")
        XCTAssertFalse(eligible, "the store account subscribed in the group already")
        eligible = try await engine.isEligibleForIntroOffer(groupID: "another", user: "alice")
        XCTAssertTrue(eligible)

        // A store that cannot tell: the user's own orders still answer.
        let quiet = try await world.engine(world.configuration(queue: ForwardingQueue(world.store)))
        eligible = try await quiet.isEligibleForIntroOffer(groupID: W.group, user: "alice")
        XCTAssertFalse(eligible)
        eligible = try await quiet.isEligibleForIntroOffer(groupID: W.group, user: "bob")
        XCTAssertTrue(eligible)
    }

    func testPromotionalOfferFailuresAreTypedAndChargeNothing() async throws {
        let world = World.tiers()
        let engine = try await world.engine()
        let early = world.store.signPromotionalOffer(offerID: W.promo, productID: W.basic, timestamp: world.clock.now)
        var error = await assertThrows(.paymentFailed) {
            _ = try await engine.purchase(productID: W.basic, user: "alice", promotionalOffer: early)
        }
        XCTAssertEqual(error?.storeReason, .ineligibleForOffer)
        let stored = await world.orders.order(id: try XCTUnwrap(error?.orderID))
        XCTAssertEqual(stored?.status, .failed)
        XCTAssertNil(stored?.transaction)

        guard case .success = try await engine.purchase(productID: W.basic, user: "alice") else { return XCTFail() }
        try await world.store.cancelSubscription(productID: W.basic)
        await world.advance(by: 10, engine)

        var forged = world.store.signPromotionalOffer(offerID: W.promo, productID: W.basic, timestamp: world.clock.now)
        forged.signature = Data("forged".utf8)
        error = await assertThrows(.paymentFailed) {
            _ = try await engine.purchase(productID: W.basic, user: "alice", promotionalOffer: forged)
        }
        XCTAssertEqual(error?.storeReason, .invalidOffer)
        var products = try await entitled(engine)
        XCTAssertTrue(products.isEmpty)

        let good = world.store.signPromotionalOffer(offerID: W.promo, productID: W.basic, timestamp: world.clock.now)
        guard case .success(let order) = try await engine.purchase(productID: W.basic, user: "alice", promotionalOffer: good)
        else { return XCTFail() }
        let days = try XCTUnwrap(order.transaction?.expirationDate).timeIntervalSince(try XCTUnwrap(order.transaction?.purchaseDate))
        XCTAssertGreaterThan(days, 55, "two offer months")
        products = try await entitled(engine)
        XCTAssertEqual(products, [W.basic])
    }

    func testARedeemedOfferCodeIsCreditedToTheCurrentUserAsAStoreInitiatedOrder() async throws {
        let world = World.tiers()
        let engine = try await world.engine()
        await engine.setCurrentUser("alice")
        try await world.store.addOfferCode("HELLO", productID: W.pro, offerID: "free-week")
        let transaction = try await world.store.redeemOfferCode("HELLO", userID: "alice")
        await engine.waitUntilIdle()
        let order = await world.orders.order(transactionID: try XCTUnwrap(transaction?.id))
        XCTAssertEqual(order?.source, .storeInitiated)
        XCTAssertEqual(order?.userID, "alice")
        let products = try await entitled(engine)
        XCTAssertEqual(products, [W.pro])
        let eligible = try await engine.isEligibleForIntroOffer(groupID: W.group, user: "alice")
        XCTAssertFalse(eligible)
    }

    func testAnOfferCodeRedeemedWithNobodyLoggedInWaitsToBeAssigned() async throws {
        let world = World.tiers()
        let engine = try await world.engine()
        try await world.store.addOfferCode("HELLO", productID: W.pro, offerID: "free-week")
        let transaction = try await world.store.redeemOfferCode("HELLO", userID: "someone")
        await engine.waitUntilIdle()
        let waiting = await engine.openOrders().filter { $0.transactionID == transaction?.id }
        XCTAssertEqual(waiting.map(\.status), [.needsAttention], "never credited to a guessed user")
        let order = try XCTUnwrap(waiting.first)
        _ = try await engine.assign(orderID: order.id, toUser: "alice")
        await engine.waitUntilIdle()
        let products = try await entitled(engine)
        XCTAssertEqual(products, [W.pro])
    }
}

/// A store that implements only what `PaymentQueue` requires, forwarding to
/// the simulated store: the protocol's defaults answer the rest.
struct ForwardingQueue: PaymentQueue {
    let base: SimulatedPaymentQueue
    init(_ base: SimulatedPaymentQueue) { self.base = base }

    func products(for identifiers: Set<String>) async throws -> ProductsResponse { try await base.products(for: identifiers) }
    func canMakePayments() async -> Bool { await base.canMakePayments() }
    func add(_ payment: Payment) async throws { try await base.add(payment) }
    func finish(transactionID: String) async throws { try await base.finish(transactionID: transactionID) }
    func restoreCompletedTransactions() async throws -> [StoreTransaction] { try await base.restoreCompletedTransactions() }
    func attach(_ observer: any PaymentQueueObserver) async { await base.attach(observer) }
    func revokedTransactions() async throws -> [StoreTransaction] { try await base.revokedTransactions() }
}
