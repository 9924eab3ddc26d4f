import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Customer info through the simulated store: answered from the order store
/// alone (offline, at launch), non-renewing subscriptions that run out,
/// subscription details, and the main-actor completion variant.
final class CustomerInfoTests: XCTestCase {
    private let month = try! SubscriptionPeriod(iso8601: "P1M")

    private func configuration(_ world: World, store: (any OrderStore)? = nil, queue: (any PaymentQueue)? = nil) -> PurchaseEngine.Configuration {
        var configuration = world.configuration(store: store, queue: queue, storeTimeout: 30)
        configuration.policies.nonRenewingDurations = [Catalog.season: month]
        return configuration
    }

    private func buy(_ engine: PurchaseEngine, _ productID: String, quantity: Int = 1, file: StaticString = #filePath, line: UInt = #line) async throws {
        let result = try await engine.purchase(productID: productID, user: "alice", quantity: quantity)
        guard case .success = result else { return XCTFail("\(productID): \(result)", file: file, line: line) }
        await engine.waitUntilIdle()
    }

    func testCustomerInfoAnswersOfflineAtLaunchFromTheOrderStoreAlone() async throws {
        let world = World()
        let online = try await world.engine(configuration(world))
        for product in [Catalog.pro, Catalog.monthly, Catalog.season] { try await buy(online, product) }
        try await buy(online, Catalog.coins, quantity: 3)
        try await online.spend(1, of: Catalog.coins, user: "alice", spendID: "hint")
        let bought = await world.orders.orders(forUser: "alice")
        let monthly = try XCTUnwrap(bought.first { $0.productID == Catalog.monthly }?.transaction)
        let season = try XCTUnwrap(bought.first { $0.productID == Catalog.season }?.transaction)

        // A cold launch with the store out of reach: every call fails, and is counted.
        let offline = InterceptingPaymentQueue(wrapping: world.store, hook: InterceptingPaymentQueue.offline)
        let engine = try await world.engine(configuration(world, queue: offline))
        let callsAtLaunch = offline.calls.count
        let info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(offline.calls.count, callsAtLaunch, "customer info asks the store nothing")
        XCTAssertEqual(info.entitlements.map(\.productID), [Catalog.monthly, Catalog.pro, Catalog.season])
        XCTAssertEqual(info.consumableBalances, [Catalog.coins: 2])
        let subscription = try XCTUnwrap(info.subscriptions[Catalog.group])
        XCTAssertEqual(subscription.status, .subscribed)
        XCTAssertEqual(subscription.productID, Catalog.monthly)
        XCTAssertEqual(subscription.expirationDate, monthly.expirationDate)
        XCTAssertNotNil(subscription.expirationDate)
        XCTAssertNil(subscription.willAutoRenew, "only the store knows, and it has not answered since launch")
        XCTAssertNil(subscription.renewalStateAsOf)
        XCTAssertEqual(info.activeSubscriptions.keys.sorted(), [Catalog.group])
        XCTAssertEqual(info.nonRenewingSubscriptions[Catalog.season]?.expirationDate, try month.date(after: season.purchaseDate))
        XCTAssertTrue(info.isEntitled(to: Catalog.season))

        // The queries answer offline too, and agree.
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements, info.entitlements)
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, info.consumableBalances)
        XCTAssertEqual(offline.calls(.products), [], "every order recorded its product type")
    }

    func testAnOrderAdoptedBeforeTheProductWasKnownTakesTheTypeOfAnotherOrderOfItOffline() async throws {
        let world = World()
        // Bought in the app (its type recorded), and bought on another device,
        // adopted before the engine had loaded the product (no type recorded).
        var inApp = Order(id: "order-1", productID: Catalog.coins, userID: "alice", productType: .consumable,
                          status: .completed, createdAt: world.clock.now)
        inApp.transaction = StoreTransaction(id: "t-1", productID: Catalog.coins, purchaseDate: world.clock.now)
        var adopted = Order(id: "purchase-t-2", productID: Catalog.coins, userID: "alice", source: .unknown,
                            status: .completed, createdAt: world.clock.now)
        adopted.transaction = StoreTransaction(id: "t-2", productID: Catalog.coins, purchaseDate: world.clock.now)
        await world.orders.save(inApp)
        await world.orders.save(adopted)
        try await world.orders.archive(orderID: inApp.id)
        try await world.orders.archive(orderID: adopted.id)

        let offline = InterceptingPaymentQueue(wrapping: world.store, hook: InterceptingPaymentQueue.offline)
        let engine = try await world.engine(world.configuration(queue: offline, storeTimeout: 30))
        let info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.consumableBalances, [Catalog.coins: 2], "one unit each; the adopted one is not taken for a non-consumable")
        XCTAssertEqual(info.entitlements, [])
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 2])
    }

    func testAfterAnUpgradeCustomerInfoHoldsOnlyTheNewPlanAsEntitlementsDo() async throws {
        let world = World.tiers()
        let engine = try await world.engine()
        guard case .success = try await engine.purchase(productID: Catalog.Tiers.basic, user: "alice") else { return XCTFail() }
        await world.advance(by: 3, engine)
        guard case .success = try await engine.purchase(productID: Catalog.Tiers.pro, user: "alice") else { return XCTFail() }
        let info = try await engine.refreshCustomerInfo(user: "alice")
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(info.entitlements, entitlements)
        XCTAssertEqual(info.entitlements.map(\.productID), [Catalog.Tiers.pro])
        XCTAssertEqual(info.subscriptions[Catalog.Tiers.group]?.productID, Catalog.Tiers.pro)
        XCTAssertEqual(info.subscriptions[Catalog.Tiers.group]?.status, .subscribed)
    }

    /// The store refunded the rest of the basic plan at the upgrade: once the
    /// upgrade is refunded too, customer info, like the entitlements, grants
    /// neither plan, and the group shows the refunded upgrade as revoked.
    func testARefundedUpgradeLeavesCustomerInfoWithNeitherPlan() async throws {
        let world = World.tiers()
        let engine = try await world.engine()
        guard case .success = try await engine.purchase(productID: Catalog.Tiers.basic, user: "alice") else { return XCTFail() }
        await world.advance(by: 2, engine)
        guard case .success(let pro) = try await engine.purchase(productID: Catalog.Tiers.pro, user: "alice") else { return XCTFail() }
        try await world.store.refund(transactionID: try XCTUnwrap(pro.transaction?.id))
        await engine.waitUntilIdle()
        let info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.entitlements, [])
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements, [], "customer info and entitlements agree")
        let group = try XCTUnwrap(info.subscriptions[Catalog.Tiers.group])
        XCTAssertEqual(group.status, .revoked)
        XCTAssertEqual(group.productID, Catalog.Tiers.pro)
        XCTAssertEqual(info.activeSubscriptions, [:])
    }

    /// One purchase of several units of a non-renewing subscription lasts
    /// the length times the units: two months for two, not one.
    func testANonRenewingPurchaseOfSeveralUnitsLastsThatManyPeriods() async throws {
        let world = World()
        let engine = try await world.engine(configuration(world))
        let start = world.clock.now
        try await buy(engine, Catalog.season, quantity: 2)
        let end = try month.date(after: start, count: 2)
        var info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.nonRenewingSubscriptions[Catalog.season]?.expirationDate, end)
        XCTAssertEqual(info.entitlements.first { $0.productID == Catalog.season }?.expirationDate, end)

        world.clock.advance(to: try month.date(after: start).addingTimeInterval(86_400))
        info = try await engine.customerInfo(user: "alice")
        XCTAssertTrue(info.isEntitled(to: Catalog.season), "the second unit's month has begun")
        world.clock.advance(to: end)
        info = try await engine.customerInfo(user: "alice")
        XCTAssertFalse(info.isEntitled(to: Catalog.season))
    }

    func testNonRenewingSubscriptionsRunOneAfterAnotherThenExpire() async throws {
        let world = World()
        let engine = try await world.engine(configuration(world))
        let start = world.clock.now
        try await buy(engine, Catalog.season)
        world.clock.advance(by: 10 * 86_400)
        try await buy(engine, Catalog.season)
        let end = try month.date(after: start, count: 2)
        var info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.nonRenewingSubscriptions[Catalog.season]?.expirationDate, end, "the second month starts when the first ends")
        XCTAssertEqual(info.entitlements.first { $0.productID == Catalog.season }?.expirationDate, end)

        world.clock.advance(to: try month.date(after: start).addingTimeInterval(86_400))
        info = try await engine.customerInfo(user: "alice")
        XCTAssertTrue(info.isEntitled(to: Catalog.season), "still within the second month")

        world.clock.advance(to: end)
        info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.nonRenewingSubscriptions[Catalog.season]?.isActive, false)
        XCTAssertFalse(info.isEntitled(to: Catalog.season))
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertFalse(entitlements.contains { $0.productID == Catalog.season }, "entitlements agree: it ran out")
    }

    func testANonRenewingSubscriptionWithoutAKnownLengthNeverExpiresAndIsLogged() async throws {
        let world = World()
        let engine = try await world.engine(world.configuration())
        try await buy(engine, Catalog.season)
        world.clock.advance(by: 400 * 86_400)
        let info = try await engine.customerInfo(user: "alice")
        XCTAssertNil(info.nonRenewingSubscriptions[Catalog.season]?.expirationDate)
        XCTAssertEqual(info.nonRenewingSubscriptions[Catalog.season]?.isActive, true)
        XCTAssertTrue(world.log.records.contains { $0.level == .warning && $0.message.contains("no known length") })
    }

    func testANonRenewingLengthComesFromTheCatalogWhenTheConfigurationHasNone() async throws {
        let week = try SubscriptionPeriod(iso8601: "P1W")
        // The product as a `.storekit` non-renewing entry with a `recurringSubscriptionPeriod` loads.
        let pass = StoreProduct(id: "com.example.week-pass", type: .nonRenewable, displayName: "Week pass", price: 1,
                           subscription: SubscriptionInfo(groupID: "com.example.week-pass", period: week))
        let world = World(seed: 0, products: Catalog.products + [pass])
        let engine = try await world.engine()
        let start = world.clock.now
        try await buy(engine, pass.id)
        let info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.nonRenewingSubscriptions[pass.id]?.expirationDate, try week.date(after: start))
        world.clock.advance(by: 8 * 86_400)
        let later = try await engine.customerInfo(user: "alice")
        XCTAssertFalse(later.isEntitled(to: pass.id))
    }

    func testSubscriptionDetailsGiveTheExpirationAndWhetherItRenews() async throws {
        let world = World()
        let engine = try await world.engine(configuration(world))
        try await buy(engine, Catalog.monthly)
        let stored = await world.orders.orders(forUser: "alice")
        let transaction = try XCTUnwrap(stored.first?.transaction)
        var details = try await engine.subscriptionDetails(user: "alice")
        var group = try XCTUnwrap(details[Catalog.group])
        XCTAssertEqual(group.status, .subscribed)
        XCTAssertEqual(group.expirationDate, transaction.expirationDate)
        XCTAssertEqual(group.willAutoRenew, true)
        XCTAssertEqual(group.renewalStateAsOf, world.clock.now)
        XCTAssertEqual(group.originalTransactionID, transaction.originalID)

        try await world.store.cancelSubscription(productID: Catalog.monthly)
        world.clock.advance(by: 60)
        details = try await engine.subscriptionDetails(user: "alice")
        group = try XCTUnwrap(details[Catalog.group])
        XCTAssertEqual(group.willAutoRenew, false, "cancelled: it ends at the expiration date")
        XCTAssertEqual(group.status, .subscribed)
        // Remembered: customer info, which never asks the store, now knows it too.
        let info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.subscriptions[Catalog.group]?.willAutoRenew, false)
        let status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status, [Catalog.group: .subscribed])
    }

    func testAGracePeriodShowsWithItsEndAndKeepsAccess() async throws {
        let world = World(settings: .init(billingIssuesEnabled: true, billingGracePeriodEnabled: true))
        let engine = try await world.engine(configuration(world))
        try await buy(engine, Catalog.monthly)
        try await world.failFirstRenewal(of: Catalog.monthly, user: "alice", orders: world.orders, engine: engine)
        let info = try await engine.refreshCustomerInfo(user: "alice")
        let group = try XCTUnwrap(info.subscriptions[Catalog.group])
        XCTAssertEqual(group.status, .inGracePeriod)
        XCTAssertEqual(group.willAutoRenew, true)
        let graceEnd = try XCTUnwrap(group.gracePeriodExpirationDate)
        XCTAssertGreaterThan(graceEnd, world.clock.now)
        XCTAssertTrue(info.isEntitled(to: Catalog.monthly), "a grace period keeps access")
        XCTAssertEqual(info.activeSubscriptions.keys.sorted(), [Catalog.group])

        world.clock.advance(to: graceEnd.addingTimeInterval(1))
        let later = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(later.subscriptions[Catalog.group]?.status, .inBillingRetry, "the remembered grace period has ended")
        XCTAssertFalse(later.isEntitled(to: Catalog.monthly))
    }

    func testARememberedGracePeriodKeepsAccessWhenTheStoreGoesOffline() async throws {
        let world = World(settings: .init(billingIssuesEnabled: true, billingGracePeriodEnabled: true))
        let queue = InterceptingPaymentQueue(wrapping: world.store)
        let engine = try await world.engine(configuration(world, queue: queue))
        try await buy(engine, Catalog.monthly)
        try await world.failFirstRenewal(of: Catalog.monthly, user: "alice", orders: world.orders, engine: engine)
        var entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.monthly], "the store says: grace period")

        queue.intercept(InterceptingPaymentQueue.offline)
        entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.monthly], "offline, the grace period the store gave last still counts")
        let info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.subscriptions[Catalog.group]?.status, .inGracePeriod)
        let status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status, [Catalog.group: .inGracePeriod])
    }

    @MainActor
    func testTheCompletionVariantCallsBackOnTheMainActor() async throws {
        let world = World()
        let engine = try await world.engine(world.configuration())
        _ = try await engine.purchase(productID: Catalog.pro, user: "alice")
        await engine.waitUntilIdle()
        let answered = expectation(description: "customer info")
        engine.customerInfo(user: "alice") { result in
            MainActor.assertIsolated()
            XCTAssertTrue(Thread.isMainThread)
            XCTAssertEqual((try? result.get())?.entitlements.map(\.productID), [Catalog.pro])
            answered.fulfill()
        }
        await fulfillment(of: [answered], timeout: 30)

        // An order store that cannot be read (its open orders load: there are none).
        let unreadable = InterceptingOrderStore(wrapping: InMemoryOrderStore()) { call in
            call.name == .loadOpenOrders ? .proceed : .fail(PurchaseKitError(.persistenceReadFailed, "unreadable", advice: ""))
        }
        let broken = try await world.engine(world.configuration(store: unreadable))
        let failed = expectation(description: "customer info failure")
        broken.customerInfo(user: "alice") { result in
            XCTAssertTrue(Thread.isMainThread)
            if case .failure(let error) = result {
                XCTAssertEqual(error.code, .persistenceReadFailed)
            } else {
                XCTFail("an unreadable store answered \(result)")
            }
            failed.fulfill()
        }
        await fulfillment(of: [failed], timeout: 30)
    }
}

extension InterceptingPaymentQueue {
    /// A hook that takes the store out of reach: every call fails at once with
    /// `storeUnavailable`; those that cannot throw answer as an unreachable
    /// store does (no payments, no observer attached, no renewal state).
    static let offline: Hook = { _ in .fail(PurchaseKitError(.storeUnavailable, "offline", advice: "")) }
}
