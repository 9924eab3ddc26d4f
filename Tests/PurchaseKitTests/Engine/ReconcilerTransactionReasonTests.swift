import XCTest
@testable import PurchaseKit

/// A change of subscription tier paid now shares its subscription's original
/// id, like a renewal. When the store says why it made a transaction
/// (``TransactionReason``), a change that lost its token is matched by time
/// to the order that asked for it, as a first purchase is; a renewal never is.
final class ReconcilerTransactionReasonTests: XCTestCase {
    private let t0 = AlicesSubscription.start
    private let reconciler = Reconciler(clockTolerance: 60, matchingWindow: 3600)
    private let day: TimeInterval = 86_400

    private var alicesMonthly: Order { AlicesSubscription.monthly(reason: .purchase) }

    /// Bob's order of the premium tier, its payment begun at `began` and not answered yet.
    private func bobsUpgrade(began: TimeInterval) -> Order {
        var order = Order(id: "upgrade", productID: "plus.premium", userID: "bob", token: "tok-upgrade",
                          createdAt: t0.addingTimeInterval(began))
        order.status = .purchasing
        order.paymentBeganAt = t0.addingTimeInterval(began)
        return order
    }

    private func inAlicesPurchase(_ id: String, product: String, at offset: TimeInterval,
                                  reason: TransactionReason?) -> StoreTransaction {
        AlicesSubscription.transaction(id, product: product, at: offset, reason: reason)
    }

    func testAnUpgradeThatLostItsTokenPaysTheOrderThatAskedForIt() {
        let upgrade = inAlicesPurchase("u1", product: "plus.premium", at: day + 20, reason: .purchase)
        XCTAssertEqual(reconciler.match(upgrade, orders: [alicesMonthly, bobsUpgrade(began: day)], currentUserID: "alice"),
                       .order(orderID: "upgrade"), "bob paid for it, on alice's subscription")
    }

    func testWithoutAReasonAnUpgradeAnotherUserWaitsForIsNotGuessed() {
        // A store that does not say: it reads as a renewal of a tier no order
        // here holds, while bob's order of that tier waits. Flagged, never alice's.
        let upgrade = inAlicesPurchase("u1", product: "plus.premium", at: day + 20, reason: nil)
        XCTAssertEqual(reconciler.match(upgrade, orders: [alicesMonthly, bobsUpgrade(began: day)], currentUserID: "alice"),
                       .ambiguous(candidateOrderIDs: ["upgrade"], userID: nil))
        // Nobody waits for the tier: still a change no order here asked for.
        XCTAssertEqual(reconciler.match(upgrade, orders: [alicesMonthly], currentUserID: "bob"),
                       .ambiguous(candidateOrderIDs: [], userID: nil))
    }

    func testARenewalIsNeverMatchedByTimeToAWaitingOrderOfItsTier() {
        // Bob's upgrade went through and its order is archived (not among the
        // candidates); his second order of the tier still waits. The tier's
        // renewal is not that order's payment.
        var archivedUpgrade = bobsUpgrade(began: day)
        archivedUpgrade.status = .completed
        archivedUpgrade.transaction = inAlicesPurchase("u1", product: "plus.premium", at: day + 20, reason: .purchase)
        let waiting = bobsUpgrade(began: 31 * day - 600)
        let renewal = inAlicesPurchase("r1", product: "plus.premium", at: 31 * day, reason: .renewal)
        XCTAssertEqual(reconciler.match(renewal, orders: [alicesMonthly, waiting], currentUserID: "bob"),
                       .ambiguous(candidateOrderIDs: ["upgrade"], userID: nil),
                       "with the change's order out of view, neither the waiting order nor alice's")
        XCTAssertEqual(reconciler.match(renewal, orders: [alicesMonthly, archivedUpgrade, waiting], currentUserID: "alice"),
                       .newOrder(userID: "bob", source: .renewal), "the tier's holder, never the waiting order")
    }

    func testARenewalFollowsOnlyOrdersPaidBeforeIt() {
        // Bob's upgrade came after this renewal of the monthly tier was
        // charged (the renewal reached this device late): it says nothing of
        // who held the monthly tier then.
        var later = bobsUpgrade(began: 40 * day)
        later.status = .completed
        later.transaction = inAlicesPurchase("u1", product: "plus.premium", at: 40 * day + 20, reason: .purchase)
        let renewal = inAlicesPurchase("r1", product: "plus.monthly", at: 31 * day, reason: .renewal)
        XCTAssertEqual(reconciler.match(renewal, orders: [later], currentUserID: "bob"),
                       .ambiguous(candidateOrderIDs: [], userID: nil))
        XCTAssertEqual(reconciler.match(renewal, orders: [alicesMonthly, later], currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal), "alice's monthly tier, paid before it")
    }

    func testARenewalWithATokenNoOrderHereKnowsIsNotFollowed() {
        // The tier change's order was lost with a device; its token rides on
        // the renewal. Alice's orders hold other tokens.
        var renewal = inAlicesPurchase("r1", product: "plus.yearly", at: 31 * day, reason: .renewal)
        renewal.orderToken = "tok-lost-change"
        XCTAssertEqual(reconciler.match(renewal, orders: [alicesMonthly], currentUserID: "alice"),
                       .ambiguous(candidateOrderIDs: [], userID: nil))
        // Her own purchase's token, carried by a renewal of her tier whose
        // order holds it only in its transaction (an order made for a flagged
        // payment): followed.
        var flaggedThenAssigned = alicesMonthly
        flaggedThenAssigned.token = nil
        renewal = inAlicesPurchase("r1", product: "plus.monthly", at: 31 * day, reason: .renewal)
        renewal.orderToken = "tok-monthly"
        XCTAssertEqual(reconciler.match(renewal, orders: [flaggedThenAssigned], currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal))
    }

    func testARenewalOfATierWhoseOrdersHereWereAllRejectedIsNotFollowedToAnotherTier() {
        // Bob's upgrade was matched to his order, and the server rejected it:
        // nobody here is known to pay for the premium tier now.
        var rejected = bobsUpgrade(began: day)
        rejected.status = .rejected
        rejected.transaction = inAlicesPurchase("u1", product: "plus.premium", at: day + 20, reason: .purchase)
        let renewal = inAlicesPurchase("r1", product: "plus.premium", at: 31 * day, reason: .renewal)
        XCTAssertEqual(reconciler.match(renewal, orders: [alicesMonthly, rejected], currentUserID: "alice"),
                       .ambiguous(candidateOrderIDs: [], userID: nil), "never alice's by way of the monthly tier")
    }

    func testAChangeNoOrderHereAskedForIsFlaggedEvenForTheTiersOwnUser() {
        // Made in the store's own settings, or by an order expired since:
        // nobody here is known to have asked for it, so nobody is guessed.
        let change = inAlicesPurchase("c1", product: "plus.premium", at: 30 * day, reason: .purchase)
        XCTAssertEqual(reconciler.match(change, orders: [alicesMonthly], currentUserID: "alice"),
                       .ambiguous(candidateOrderIDs: [], userID: nil))
    }

    func testAChangeOutsideTheMatchingWindowOfAnotherUsersWaitingOrderIsNotGuessed() {
        // Bob's order began long before: it may still be this payment's (the
        // phone's clock can be off), so neither alice nor bob gets it.
        let change = inAlicesPurchase("c1", product: "plus.premium", at: 30 * day, reason: .purchase)
        XCTAssertEqual(reconciler.match(change, orders: [alicesMonthly, bobsUpgrade(began: day)], currentUserID: "alice"),
                       .ambiguous(candidateOrderIDs: ["upgrade"], userID: nil))
    }

    func testTwoWaitingOrdersOfTheTierAreNeverGuessedBetween() {
        var alicesUpgrade = bobsUpgrade(began: day + 5)
        alicesUpgrade.id = "alice-upgrade"
        alicesUpgrade.userID = "alice"
        let upgrade = inAlicesPurchase("u1", product: "plus.premium", at: day + 20, reason: .purchase)
        XCTAssertEqual(reconciler.match(upgrade, orders: [alicesMonthly, bobsUpgrade(began: day), alicesUpgrade],
                                        currentUserID: "alice"),
                       .ambiguous(candidateOrderIDs: ["alice-upgrade", "upgrade"], userID: nil))
    }
}
