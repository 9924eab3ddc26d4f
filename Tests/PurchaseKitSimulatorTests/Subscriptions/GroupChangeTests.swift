import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// Upgrades, downgrades and crossgrades inside one subscription group.
final class GroupChangeTests: XCTestCase {
    func testLevelsDecideTheKindOfChange() {
        let products = Dictionary(uniqueKeysWithValues: TestCatalog.Tiers.products.map { ($0.id, $0.subscription!) })
        XCTAssertEqual(SubscriptionChange.between(products[TestCatalog.Tiers.basic]!, products[TestCatalog.Tiers.pro]!), .upgrade)
        XCTAssertEqual(SubscriptionChange.between(products[TestCatalog.Tiers.pro]!, products[TestCatalog.Tiers.basic]!), .downgrade)
        XCTAssertEqual(SubscriptionChange.between(products[TestCatalog.Tiers.basic]!, products[TestCatalog.Tiers.plus]!), .crossgrade)
        XCTAssertTrue(SubscriptionChange.takesEffectAtOnce(from: products[TestCatalog.Tiers.basic]!, to: products[TestCatalog.Tiers.plus]!))
        XCTAssertFalse(SubscriptionChange.takesEffectAtOnce(from: products[TestCatalog.Tiers.basic]!, to: products[TestCatalog.Tiers.basicYearly]!))
        XCTAssertFalse(SubscriptionChange.takesEffectAtOnce(from: products[TestCatalog.Tiers.pro]!, to: products[TestCatalog.Tiers.basic]!))
    }

    func testUpgradeTakesEffectAtOnceAndEndsTheOldSubscription() async throws {
        let (store, clock, observer) = await TestCatalog.Tiers.makeStore()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-basic"))
        let basic = try XCTUnwrap(observer.updates.last?.transaction)
        clock.advance(by: 3)
        observer.reset()

        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.pro, token: "order-pro"))
        XCTAssertEqual(observer.kinds, [.purchasing, .purchased])
        let pro = try XCTUnwrap(observer.updates.last?.transaction)
        XCTAssertEqual(pro.productID, TestCatalog.Tiers.pro)
        XCTAssertEqual(pro.purchaseDate, clock.now, "an upgrade starts now")
        XCTAssertEqual(pro.originalID, basic.originalID, "the group keeps its original transaction")
        XCTAssertEqual(pro.orderToken, "order-pro")
        XCTAssertEqual(basic.reason, .purchase)
        XCTAssertEqual(pro.reason, .purchase, "the App Store says an upgrade is a purchase, though it shares the original id")
        let proExpiration = try XCTUnwrap(pro.expirationDate)
        XCTAssertGreaterThan(proExpiration.timeIntervalSince(pro.purchaseDate), 27, "a full month, no intro offer")
        let isUpgraded = await store.isUpgraded(transactionID: basic.id)
        XCTAssertTrue(isUpgraded)
        // basic was bought with a free week: nothing paid, nothing refunded.
        let refunded = await store.proratedRefund(transactionID: basic.id)
        XCTAssertEqual(refunded, 0)
        let proRefund = await store.proratedRefund(transactionID: pro.id)
        XCTAssertNil(proRefund)

        let old = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.Tiers.basic))
        XCTAssertEqual(old.state, .expired)
        XCTAssertTrue(old.wasUpgraded)
        XCTAssertEqual(old.expirationDate, pro.purchaseDate, "the old period ends at the upgrade")
        let new = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.Tiers.pro))
        XCTAssertEqual(new.state, .subscribed)

        // A month later only the new product renews.
        observer.reset()
        clock.advance(by: 40)
        await store.processRenewals()
        XCTAssertEqual(Set(observer.updates.compactMap(\.transaction?.productID)), [TestCatalog.Tiers.pro])
        XCTAssertEqual(Set(observer.updates.compactMap(\.transaction?.reason)), [.renewal])
    }

    func testUpgradeThenRestoreBringsBackOnlyTheNewProduct() async throws {
        let (store, clock, _) = await TestCatalog.Tiers.makeStore()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-basic"))
        clock.advance(by: 2)
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.pro, token: "order-pro"))
        let restored = try await store.restoreCompletedTransactions()
        XCTAssertEqual(restored.map(\.productID), [TestCatalog.Tiers.pro])
    }

    func testAnUpgradeRefundsThePaidShareOfThePeriodLeft() async throws {
        let (store, clock, observer) = await TestCatalog.Tiers.makeStore()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.plus, token: "order-plus"))   // 4.00 a month, no trial
        let plus = try XCTUnwrap(observer.updates.last?.transaction)
        let length = try XCTUnwrap(plus.expirationDate).timeIntervalSince(plus.purchaseDate)
        clock.advance(by: length / 4)
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.pro, token: "order-pro"))
        let refunded = await store.proratedRefund(transactionID: plus.id)
        XCTAssertEqual(refunded, 3, "three quarters of 4.00 were left")
    }

    func testDowngradeWaitsForTheRenewalDateOnTheClock() async throws {
        let (store, clock, observer) = await TestCatalog.Tiers.makeStore()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.pro, token: "order-pro"))
        let pro = try XCTUnwrap(observer.updates.last?.transaction)
        let renewalDate = try XCTUnwrap(pro.expirationDate)
        observer.reset()

        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-basic"))
        XCTAssertEqual(observer.kinds, [.purchasing, .scheduled], "nothing is charged before the renewal date")
        XCTAssertNil(observer.updates.last?.transaction)
        var current = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.Tiers.pro))
        XCTAssertEqual(current.state, .subscribed)
        XCTAssertEqual(current.scheduledProductID, TestCatalog.Tiers.basic)

        clock.advance(to: renewalDate.addingTimeInterval(-1))
        observer.reset()
        await store.processRenewals()
        XCTAssertTrue(observer.updates.isEmpty, "the old subscription runs to its end")

        clock.advance(to: renewalDate.addingTimeInterval(1))
        await store.processRenewals()
        let basic = try XCTUnwrap(observer.updates.last?.transaction)
        XCTAssertEqual(observer.updates.count, 1)
        XCTAssertEqual(basic.productID, TestCatalog.Tiers.basic)
        XCTAssertEqual(basic.purchaseDate, renewalDate, "the new product starts where the old one ended")
        XCTAssertEqual(basic.orderToken, "order-basic", "the transaction answers the downgrade's payment")
        XCTAssertEqual(basic.originalID, pro.originalID)
        XCTAssertEqual(basic.reason, .renewal, "a downgrade takes effect as a renewal")
        current = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.Tiers.pro))
        XCTAssertEqual(current.state, .expired)
        XCTAssertFalse(current.wasUpgraded)
        let next = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.Tiers.basic))
        XCTAssertEqual(next.state, .subscribed)
        let group = try unwrapped(await store.subscriptionStatus(groupID: TestCatalog.Tiers.group))
        XCTAssertEqual(group.productID, TestCatalog.Tiers.basic, "the group's current subscription")
        let none = await store.subscriptionStatus(groupID: "no-such-group")
        XCTAssertNil(none)
    }

    func testBuyingTheCurrentProductAgainCancelsAScheduledDowngrade() async throws {
        let (store, clock, observer) = await TestCatalog.Tiers.makeStore()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.pro, token: "order-pro"))
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-basic"))
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.pro, token: "order-pro-again"))
        let status = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.Tiers.pro))
        XCTAssertNil(status.scheduledProductID)
        observer.reset()
        clock.advance(by: 35)
        await store.processRenewals()
        XCTAssertEqual(observer.updates.compactMap(\.transaction?.productID), [TestCatalog.Tiers.pro])
    }

    func testCrossgradeOfTheSameDurationIsImmediateAndOfAnotherDurationWaits() async throws {
        let (store, _, observer) = await TestCatalog.Tiers.makeStore()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-basic"))
        let basic = try XCTUnwrap(observer.updates.last?.transaction)
        observer.reset()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.plus, token: "order-plus"))
        XCTAssertEqual(observer.kinds, [.purchasing, .purchased])
        let isUpgraded = await store.isUpgraded(transactionID: basic.id)
        XCTAssertTrue(isUpgraded, "a crossgrade at once ends the old period like an upgrade")

        observer.reset()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basicYearly, token: "order-yearly"))
        XCTAssertEqual(observer.kinds, [.purchasing, .scheduled])
        let plus = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.Tiers.plus))
        XCTAssertEqual(plus.scheduledProductID, TestCatalog.Tiers.basicYearly)
    }

    func testCancellingDropsAScheduledChange() async throws {
        let (store, clock, observer) = await TestCatalog.Tiers.makeStore()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.pro, token: "order-pro"))
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-basic"))
        try await store.cancelSubscription(productID: TestCatalog.Tiers.pro)
        observer.reset()
        clock.advance(by: 40)
        await store.processRenewals()
        XCTAssertTrue(observer.updates.isEmpty, "a cancelled subscription neither renews nor changes product")
        let basic = await store.subscriptionStatus(productID: TestCatalog.Tiers.basic)
        XCTAssertNil(basic)
    }

    func testAnAskToBuyUpgradeFollowsTheGroupRulesWhenApproved() async throws {
        let (store, _, observer) = await TestCatalog.Tiers.makeStore()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-basic"))
        let basic = try XCTUnwrap(observer.updates.last?.transaction)
        await store.setBehavior(.askToBuy, for: TestCatalog.Tiers.pro)
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.pro, token: "order-pro"))
        XCTAssertEqual(observer.kinds.last, .deferred)
        var isUpgraded = await store.isUpgraded(transactionID: basic.id)
        XCTAssertFalse(isUpgraded, "nothing changes before the parent approves")
        try await store.approveAskToBuy(orderToken: "order-pro")
        let pro = try XCTUnwrap(observer.updates.last?.transaction)
        XCTAssertEqual(pro.productID, TestCatalog.Tiers.pro)
        XCTAssertEqual(pro.originalID, basic.originalID)
        isUpgraded = await store.isUpgraded(transactionID: basic.id)
        XCTAssertTrue(isUpgraded)
    }

    func testScheduledChangeSurvivesSaveAndLoad() async throws {
        let (store, clock, _) = await TestCatalog.Tiers.makeStore()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.pro, token: "order-pro"))
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-basic"))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("group-change-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try await store.saveState(to: url)
        let reloaded = try SimulatedPaymentQueue.load(from: url, clock: clock)
        let observer = RecordingObserver()
        await reloaded.attach(observer)
        observer.reset()
        clock.advance(by: 40)
        await reloaded.processRenewals()
        XCTAssertEqual(observer.updates.first?.transaction?.productID, TestCatalog.Tiers.basic)
        XCTAssertEqual(observer.updates.first?.transaction?.orderToken, "order-basic")
    }
}
