import XCTest
@testable import PurchaseKit

/// A change of subscription tier (an upgrade, a downgrade or a crossgrade)
/// continues a known purchase, but it is a payment: on a store account shared
/// by several app users, the user who asked for it need not be the one who
/// bought the subscription. Without its token it is matched as a first
/// purchase is, never followed to the subscription's first buyer; and a
/// renewal follows the orders of the product it renews.
final class ReconcilerTierChangeTests: XCTestCase {
    private let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    private let reconciler = Reconciler(clockTolerance: 60, matchingWindow: 3600)

    /// Alice's monthly subscription, bought and delivered: transaction `m1`.
    private var alicesMonthly: Order {
        var order = Order(id: "monthly", productID: "plus.monthly", userID: "alice", token: "tok-monthly", createdAt: t0)
        order.status = .completed
        order.transaction = StoreTransaction(id: "m1", productID: "plus.monthly", purchaseDate: t0, orderToken: "tok-monthly")
        return order
    }

    /// Bob's order of the premium tier, waiting for its payment since `began`.
    private func bobsPremium(began: TimeInterval, status: OrderStatus = .purchasing) -> Order {
        var order = Order(id: "premium", productID: "plus.premium", userID: "bob", token: "tok-premium",
                          createdAt: t0.addingTimeInterval(began))
        order.status = status
        order.paymentBeganAt = t0.addingTimeInterval(began)
        return order
    }

    /// A transaction of `product` in alice's purchase (original id `m1`), without a token.
    private func inAlicesPurchase(_ id: String, product: String, at offset: TimeInterval) -> StoreTransaction {
        StoreTransaction(id: id, originalID: "m1", productID: product, purchaseDate: t0.addingTimeInterval(offset))
    }

    func testATokenlessUpgradePaysTheOrderThatAskedForItNotTheSubscriptionsFirstBuyer() {
        let upgrade = inAlicesPurchase("u1", product: "plus.premium", at: 86_400 + 20)
        let orders = [alicesMonthly, bobsPremium(began: 86_400)]
        for current in ["alice", "bob", nil] {
            XCTAssertEqual(reconciler.match(upgrade, orders: orders, currentUserID: current), .order(orderID: "premium"),
                           "logged in: \(current ?? "nobody")")
        }
    }

    func testATokenlessChangeAtTheRenewalDateIsNeverFollowedWhileAnOrderOfItsProductWaits() {
        // Asked for a month before the renewal date: out of the matching window.
        let change = inAlicesPurchase("c1", product: "plus.premium", at: 30 * 86_400)
        for status: OrderStatus in [.purchasing, .deferred] {
            let orders = [alicesMonthly, bobsPremium(began: 60, status: status)]
            XCTAssertEqual(reconciler.match(change, orders: orders, currentUserID: "bob"),
                           .ambiguous(candidateOrderIDs: ["premium"], userID: "bob"),
                           "bob's, flagged: not followed to alice (\(status))")
        }
    }

    func testAChangeNoOrderAskedForFollowsTheSubscription() {
        // Made in the store's own settings: no order of the product waits.
        let change = inAlicesPurchase("c1", product: "plus.premium", at: 30 * 86_400)
        XCTAssertEqual(reconciler.match(change, orders: [alicesMonthly], currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal))
    }

    func testARenewalFollowsTheUserOfTheTierItRenews() {
        var upgraded = bobsPremium(began: 86_400, status: .completed)
        upgraded.transaction = inAlicesPurchase("u1", product: "plus.premium", at: 86_400 + 20)
        let renewal = inAlicesPurchase("r1", product: "plus.premium", at: 31 * 86_400)
        XCTAssertEqual(reconciler.match(renewal, orders: [alicesMonthly, upgraded], currentUserID: "alice"),
                       .newOrder(userID: "bob", source: .renewal), "bob holds the premium tier now")
        // A renewal of the monthly tier still follows alice.
        let monthlyRenewal = inAlicesPurchase("r2", product: "plus.monthly", at: 31 * 86_400)
        XCTAssertEqual(reconciler.match(monthlyRenewal, orders: [alicesMonthly, upgraded], currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal))
    }

    func testARenewalOfATierKnownOnlyThroughAnUnansweredClaimIsFlagged() {
        // Bob's premium tier arrived from another device: his claim, not yet accepted.
        var claimed = Order(id: "claim", productID: "plus.premium", userID: "bob", token: nil, createdAt: t0)
        claimed.status = .purchased
        claimed.source = .otherDevice
        claimed.transaction = inAlicesPurchase("u1", product: "plus.premium", at: 86_400)
        let renewal = inAlicesPurchase("r1", product: "plus.premium", at: 31 * 86_400)
        XCTAssertEqual(reconciler.match(renewal, orders: [alicesMonthly, claimed], currentUserID: "alice"),
                       .ambiguous(candidateOrderIDs: [], userID: nil), "never alice's by way of the monthly tier")
    }
}
