import Foundation
import XCTest
@testable import PurchaseKit

/// ``CustomerInfoBuilder`` on stored facts alone, without a store: the cases
/// an engine reaches rarely (a refund noted on a transaction before the order
/// moved, a store clock ahead of the device's, the very end of a grace
/// period), where crediting wrongly means access nobody paid for.
final class CustomerInfoBuilderTests: XCTestCase {
    private let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    private let day: TimeInterval = 86_400

    private func paid(_ id: String, product: String, type: ProductType, group: String? = nil, status: OrderStatus = .completed,
                      bought: TimeInterval = -86_400, expires: TimeInterval? = nil, revoked: Bool = false,
                      original: String? = nil) -> Order {
        var order = Order(id: id, productID: product, userID: "alice", productType: type, subscriptionGroupID: group,
                          status: status, createdAt: now.addingTimeInterval(bought))
        order.transaction = StoreTransaction(
            id: "t-\(id)", originalID: original, productID: product, purchaseDate: now.addingTimeInterval(bought),
            expirationDate: expires.map { now.addingTimeInterval($0) }, revocationDate: revoked ? now.addingTimeInterval(-60) : nil)
        return order
    }

    private func build(_ orders: [Order], renewals: [String: KnownRenewalState] = [:]) -> CustomerInfo {
        CustomerInfoBuilder(userID: "alice", orders: orders, facts: ProductFacts.resolve(orders, catalog: [:]), spends: [],
                            renewals: renewals, nonRenewingDuration: { _ in nil }, now: now).build()
    }

    /// The store's refund can be on the stored transaction while the order
    /// still reads `completed` (its move to `revoked` not saved yet): what
    /// was refunded grants nothing, counts no units, and its subscription
    /// shows as revoked, as ``PurchaseEngine/entitlements(user:)`` answers.
    func testARefundOnTheTransactionOfACompletedOrderGrantsNothing() {
        let orders = [
            paid("pro", product: "pro", type: .nonConsumable, revoked: true),
            paid("coins", product: "coins", type: .consumable, revoked: true),
            paid("plus", product: "plus", type: .autoRenewable, group: "plus-group", expires: 20 * day, revoked: true),
        ]
        let info = build(orders)
        XCTAssertEqual(info.entitlements, [])
        XCTAssertEqual(info.consumableBalances, [:])
        XCTAssertEqual(info.subscriptions["plus-group"]?.status, .revoked)
        XCTAssertEqual(info.subscriptions["plus-group"]?.willAutoRenew, false)
        XCTAssertEqual(info.activeSubscriptions, [:])
    }

    /// The store said the subscription renews, but no renewal reached the
    /// engine and its period is over: expired (it may renew), not
    /// subscribed, and no access until the renewal's transaction comes.
    func testAnEndedPeriodTheStoreSaysWillRenewIsExpiredUntilTheRenewalArrives() throws {
        let order = paid("plus", product: "plus", type: .autoRenewable, group: "plus-group", bought: -31 * day, expires: -3600)
        let original = try XCTUnwrap(order.transaction?.originalID)
        let info = build([order], renewals: [original: KnownRenewalState(state: .active(willRenew: true), asOf: now.addingTimeInterval(-7200))])
        let group = try XCTUnwrap(info.subscriptions["plus-group"])
        XCTAssertEqual(group.status, .expired)
        XCTAssertEqual(group.willAutoRenew, true)
        XCTAssertEqual(info.activeSubscriptions, [:])
        XCTAssertFalse(info.isEntitled(to: "plus"))
    }

    /// A grace period ends at its end date: at that instant the store is
    /// retrying the charge and access stops.
    func testAGracePeriodEndingNowNoLongerGrantsAccess() throws {
        let order = paid("plus", product: "plus", type: .autoRenewable, group: "plus-group", bought: -31 * day, expires: -3600)
        let original = try XCTUnwrap(order.transaction?.originalID)
        let grace = build([order], renewals: [original: KnownRenewalState(state: .inGracePeriod(until: now.addingTimeInterval(1)), asOf: now)])
        XCTAssertEqual(grace.subscriptions["plus-group"]?.status, .inGracePeriod, "the control: one second before its end")
        XCTAssertTrue(grace.isEntitled(to: "plus"))

        let ended = build([order], renewals: [original: KnownRenewalState(state: .inGracePeriod(until: now), asOf: now)])
        XCTAssertEqual(ended.subscriptions["plus-group"]?.status, .inBillingRetry)
        XCTAssertNil(ended.subscriptions["plus-group"]?.gracePeriodExpirationDate)
        XCTAssertFalse(ended.isEntitled(to: "plus"))
    }

    /// A transaction whose purchase date is still ahead (the store's clock
    /// runs ahead of the device's) has not begun: it does not cut short the
    /// plan the user is in now.
    func testAPurchaseDatedAheadOfTheClockDoesNotSupersedeTheCurrentPlan() {
        let current = paid("basic", product: "basic", type: .autoRenewable, group: "tiers", bought: -10 * day, expires: 20 * day)
        let ahead = paid("pro", product: "pro", type: .autoRenewable, group: "tiers", bought: 3600, expires: 30 * day)
        XCTAssertEqual(SupersededSubscriptions.orderIDs(in: [current, ahead], facts: ProductFacts.resolve([current, ahead], catalog: [:]),
                                                        now: now), [])
        XCTAssertTrue(build([current, ahead]).isEntitled(to: "basic"))
        // Once it has begun, it replaces the plan.
        XCTAssertEqual(SupersededSubscriptions.orderIDs(in: [current, ahead], facts: ProductFacts.resolve([current, ahead], catalog: [:]),
                                                        now: now.addingTimeInterval(3600)), ["basic"])
    }

    /// An upgrade to a product nobody describes any more (no type or group
    /// recorded, gone from the catalog) stays in the group of the purchase it
    /// continues, found by the original transaction: it replaces that plan
    /// rather than granting a second subscription next to it.
    func testAnUndescribedUpgradeTakesTheGroupOfThePurchaseItContinues() {
        let basic = paid("basic", product: "old.basic", type: .autoRenewable, group: "tiers", bought: -10 * day, expires: 20 * day)
        var upgrade = Order(id: "upgrade", productID: "old.pro", userID: "alice", source: .unknown, status: .completed,
                            createdAt: now.addingTimeInterval(-day))
        upgrade.transaction = StoreTransaction(id: "t-upgrade", originalID: "t-basic", productID: "old.pro",
                                               purchaseDate: now.addingTimeInterval(-day), expirationDate: now.addingTimeInterval(29 * day))
        let facts = ProductFacts.resolve([basic, upgrade], catalog: [:])
        XCTAssertEqual(facts["upgrade"], ProductFacts(type: .autoRenewable, groupID: "tiers", source: .inferred))
        let info = build([basic, upgrade])
        XCTAssertEqual(info.entitlements.map(\.productID), ["old.pro"])
        XCTAssertEqual(info.subscriptions.keys.sorted(), ["tiers"])
    }

    /// Another user of a shared store account changed alice's subscription:
    /// her plan ends when the change begins, not before, and only a change
    /// later than her latest transaction in it counts.
    func testAnotherUsersChangeEndsThePlanWhenItBegins() throws {
        let alices = paid("basic", product: "basic", type: .autoRenewable, group: "tiers", bought: -10 * day, expires: 20 * day)
        func bobs(at offset: TimeInterval, original: String? = "t-basic") -> Order {
            var order = paid("pro-\(offset)", product: "pro", type: .autoRenewable, group: "tiers", bought: offset,
                             expires: offset + 30 * day, original: original)
            order.userID = "bob"
            return order
        }
        func info(with changes: [Order]) -> CustomerInfo {
            let all = [alices] + changes
            var builder = CustomerInfoBuilder(userID: "alice", orders: [alices], facts: ProductFacts.resolve(all, catalog: [:]),
                                              spends: [], renewals: [:], nonRenewingDuration: { _ in nil }, now: now)
            builder.changesByOthers = changes
            return builder.build()
        }
        let ended = info(with: [bobs(at: -day)])
        XCTAssertEqual(ended.entitlements, [])
        let group = try XCTUnwrap(ended.subscriptions["tiers"])
        XCTAssertEqual(group.status, .expired)
        XCTAssertEqual(group.productID, "basic")
        XCTAssertEqual(group.expirationDate, now.addingTimeInterval(-day))
        XCTAssertEqual(group.willAutoRenew, false)

        // A plan refunded before the change stays revoked.
        var refunded = alices
        refunded.status = .revoked
        var builder = CustomerInfoBuilder(userID: "alice", orders: [refunded],
                                          facts: ProductFacts.resolve([refunded, bobs(at: -day)], catalog: [:]),
                                          spends: [], renewals: [:], nonRenewingDuration: { _ in nil }, now: now)
        builder.changesByOthers = [bobs(at: -day)]
        XCTAssertEqual(builder.build().subscriptions["tiers"]?.status, .revoked)

        // A change dated ahead of the clock, one before her plan, or one of
        // another subscription of the group (another store account's).
        for kept in [info(with: [bobs(at: day)]), info(with: [bobs(at: -20 * day)]), info(with: [bobs(at: -day, original: "t-other")])] {
            XCTAssertEqual(kept.entitlements.map(\.productID), ["basic"])
            XCTAssertEqual(kept.subscriptions["tiers"]?.status, .subscribed)
        }
    }

    /// bob's change bears the date of alice's purchase (an Ask to Buy
    /// approval dated when it was asked): the store's ids say it came after,
    /// as the reconciler orders them, so her plan ends with it.
    func testAChangeOfTheSameDateEndsThePlanWhenTheStoresIDsSayItCameAfter() throws {
        func order(_ id: String, user: String, product: String, transaction: String) -> Order {
            var order = Order(id: id, productID: product, userID: user, productType: .autoRenewable, subscriptionGroupID: "tiers",
                              status: .completed, createdAt: now.addingTimeInterval(-day))
            order.transaction = StoreTransaction(id: transaction, originalID: "9", productID: product,
                                                 purchaseDate: now.addingTimeInterval(-day), expirationDate: now.addingTimeInterval(29 * day))
            return order
        }
        func info(alicesTransaction: String, bobsTransaction: String) -> CustomerInfo {
            let alices = order("a", user: "alice", product: "basic", transaction: alicesTransaction)
            let bobs = order("b", user: "bob", product: "pro", transaction: bobsTransaction)
            var builder = CustomerInfoBuilder(userID: "alice", orders: [alices], facts: ProductFacts.resolve([alices, bobs], catalog: [:]),
                                              spends: [], renewals: [:], nonRenewingDuration: { _ in nil }, now: now)
            builder.changesByOthers = [bobs]
            return builder.build()
        }
        let ended = info(alicesTransaction: "9", bobsTransaction: "10")
        XCTAssertEqual(ended.entitlements, [])
        XCTAssertEqual(ended.subscriptions["tiers"]?.status, .expired)
        let kept = info(alicesTransaction: "10", bobsTransaction: "9")
        XCTAssertEqual(kept.entitlements.map(\.productID), ["basic"], "bob's came first")
    }

    /// alice's own subscription (another store account's) bought first, then
    /// one on the shared account, which bob changes: hers runs on, and the
    /// group's status is read from it again.
    func testASubscriptionOfAnotherStoreAccountRunsOnWhenAnotherUserEndsTheLaterOne() throws {
        let own = paid("own", product: "basic", type: .autoRenewable, group: "tiers", bought: -20 * day, expires: 10 * day)
        let shared = paid("shared", product: "basic", type: .autoRenewable, group: "tiers", bought: -10 * day, expires: 20 * day)
        var bobs = paid("bobs", product: "pro", type: .autoRenewable, group: "tiers", bought: -day, expires: 29 * day,
                        original: shared.transaction?.id)
        bobs.userID = "bob"
        var builder = CustomerInfoBuilder(userID: "alice", orders: [own, shared],
                                          facts: ProductFacts.resolve([own, shared, bobs], catalog: [:]),
                                          spends: [], renewals: [:], nonRenewingDuration: { _ in nil }, now: now)
        builder.changesByOthers = [bobs]
        let info = builder.build()
        XCTAssertEqual(info.entitlements.map(\.orderID), ["own"])
        XCTAssertEqual(info.subscriptions["tiers"]?.status, .subscribed)
        XCTAssertEqual(info.subscriptions["tiers"]?.transactionID, own.transaction?.id)
    }

    /// bob's change is dated ahead of the clock: alice's plan still counts,
    /// and ends when it begins, which is when her info changes next.
    func testAChangeDatedAheadOfTheClockIsWhenThePlanEnds() throws {
        let alices = paid("basic", product: "basic", type: .autoRenewable, group: "tiers", bought: -10 * day, expires: 20 * day)
        var bobs = paid("bobs", product: "pro", type: .autoRenewable, group: "tiers", bought: 30, expires: 30 * day,
                        original: alices.transaction?.id)
        bobs.userID = "bob"
        var builder = CustomerInfoBuilder(userID: "alice", orders: [alices], facts: ProductFacts.resolve([alices, bobs], catalog: [:]),
                                          spends: [], renewals: [:], nonRenewingDuration: { _ in nil }, now: now)
        builder.changesByOthers = [bobs]
        let info = builder.build()
        XCTAssertEqual(info.entitlements.map(\.productID), ["basic"])
        XCTAssertEqual(info.subscriptions["tiers"]?.status, .subscribed)
        XCTAssertEqual(info.subscriptions["tiers"]?.expirationDate, now.addingTimeInterval(30))
        XCTAssertEqual(CustomerInfoBuilder.nextChange(of: info, after: now), now.addingTimeInterval(30))
    }
}
