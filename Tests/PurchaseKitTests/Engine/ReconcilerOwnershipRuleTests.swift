import XCTest
@testable import PurchaseKit

/// The reconciler's rules at their edges: which orders a transaction may pay,
/// which orders count as waiting for a payment, whose name a flagged order
/// carries, and when another user's refused restore claim stops holding a
/// transaction.
final class ReconcilerOwnershipRuleTests: XCTestCase {
    private let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    private let reconciler = Reconciler(clockTolerance: 60, matchingWindow: 3600)

    private func order(_ id: String, user: String, product: String = "p", status: OrderStatus = .purchasing,
                       token: String? = nil, began: TimeInterval = 0) -> Order {
        var order = Order(id: id, productID: product, userID: user, token: token ?? "tok-\(id)", createdAt: t0)
        order.status = status
        order.paymentBeganAt = t0.addingTimeInterval(began)
        return order
    }

    private func transaction(_ id: String = "t1", product: String = "p", token: String? = nil, at offset: TimeInterval = 10,
                             originalID: String? = nil) -> StoreTransaction {
        StoreTransaction(id: id, originalID: originalID, productID: product, purchaseDate: t0.addingTimeInterval(offset), orderToken: token)
    }

    // MARK: Rule 2: a token pays its order only for the order's product

    func testATokenOfAnUnpaidOrderOfAnotherProductNeverPaysThatOrderAndStaysWithItsUser() {
        let waiting = [order("a", user: "alice", product: "p")]
        for kind in [TransactionUpdate.Kind.purchased, .restored] {
            let match = reconciler.match(transaction(product: "q", token: "tok-a"), kind: kind, orders: waiting, currentUserID: "bob")
            XCTAssertNotEqual(match, .order(orderID: "a"), "a payment of q never pays an order of p (\(kind))")
            XCTAssertEqual(match, .newOrder(userID: "alice", source: .unknown), "the token's user, never the current one (\(kind))")
        }
        // The same token on a payment of the order's own product pays it.
        XCTAssertEqual(reconciler.match(transaction(product: "p", token: "tok-a"), orders: waiting, currentUserID: "bob"),
                       .order(orderID: "a"))
    }

    // MARK: A token on two orders

    func testATokenOnTwoOrdersOfOneUserIsFlaggedInThatUsersName() {
        let twice = [order("a", user: "alice", token: "tok-x"), order("b", user: "alice", token: "tok-x")]
        XCTAssertEqual(reconciler.match(transaction(token: "tok-x"), orders: twice, currentUserID: "bob"),
                       .ambiguous(candidateOrderIDs: ["a", "b"], userID: "alice"),
                       "never guessed between the two, but both are alice's: not bob's, nor nobody's")
    }

    // MARK: Rule 3: which orders wait for a payment

    /// A failed order waits for nothing unless the store never answered its
    /// payment (an expired payment). An order whose payment the store refused
    /// is never paid by a time match, and never stands in the way of the
    /// logged-in user's purchase from another device.
    func testAFailedOrderThatIsNoExpiredPaymentNeverTakesATokenlessPayment() {
        var refused = order("a", user: "alice", status: .failed)
        refused.lastErrorCode = .paymentFailed
        refused.storeFailureReason = .paymentNotAllowed
        var timedOutThenRefused = order("a", user: "alice", status: .failed)
        timedOutThenRefused.lastErrorCode = .timeout
        timedOutThenRefused.storeFailureReason = .paymentNotAllowed
        var unavailable = order("a", user: "alice", status: .failed)
        unavailable.lastErrorCode = .paymentFailed
        unavailable.storeFailureReason = .productNotAvailable
        for failed in [refused, timedOutThenRefused, unavailable] {
            XCTAssertFalse(failed.isExpiredPayment)
            // Within the matching window, and long after it.
            for offset: TimeInterval in [10, 7200] {
                XCTAssertEqual(reconciler.match(transaction(at: offset), orders: [failed], currentUserID: "bob"),
                               .newOrder(userID: "bob", source: .otherDevice), "\(failed.storeFailureReason!), \(offset)")
                XCTAssertEqual(reconciler.match(transaction(at: offset), kind: .restored, orders: [failed], currentUserID: "bob"),
                               .newOrder(userID: "bob", source: .restore), "\(failed.storeFailureReason!), \(offset)")
            }
            XCTAssertEqual(reconciler.match(transaction("t2", originalID: "t1"), kind: .restored, orders: [failed], currentUserID: "bob"),
                           .newOrder(userID: "bob", source: .restore), "a restored renewal, \(failed.storeFailureReason!)")
        }
        // The same order, expired waiting for the store: the payment may be alice's.
        var expired = order("a", user: "alice", status: .failed)
        expired.lastErrorCode = .timeout
        XCTAssertEqual(reconciler.match(transaction(at: 10), orders: [expired], currentUserID: "bob"), .order(orderID: "a"))
        XCTAssertEqual(reconciler.match(transaction(at: 7200), orders: [expired], currentUserID: "bob"),
                       .ambiguous(candidateOrderIDs: ["a"], userID: nil))
    }

    /// Rule 6 holds back a restored renewal only when it carries no token: a
    /// token no order holds belongs to no waiting order here (each has its
    /// own), so another user's waiting order does not make it doubtful.
    func testARestoredRenewalWithATokenNoOrderHoldsGoesToTheRestoringUserWhileAnotherUsersOrderWaits() {
        let waiting = [order("a", user: "alice", began: -86_400)]
        XCTAssertEqual(reconciler.match(transaction("t2", token: "first-device", originalID: "t1"), kind: .restored,
                                        orders: waiting, currentUserID: "bob"),
                       .newOrder(userID: "bob", source: .restore))
        XCTAssertEqual(reconciler.match(transaction("t2", originalID: "t1"), kind: .restored, orders: waiting, currentUserID: "bob"),
                       .ambiguous(candidateOrderIDs: ["a"], userID: nil), "without its token it may be alice's")
    }

    // MARK: Rule 7: another user's refused restore claim

    /// A refused restore claim of another user gives way to this user's
    /// restore only once its transaction is finished: until then its order
    /// is still being handled, and a claim made in its place, with the same
    /// id, would replace it midway.
    func testAnotherUsersRefusedRestoreClaimHoldsItsTransactionUntilItIsFinished() {
        var refused = order("restore-t1", user: "alice", status: .rejected)
        refused.source = .restore
        refused.transaction = transaction("t1", token: nil)
        XCTAssertFalse(refused.isFinished)
        XCTAssertEqual(reconciler.match(transaction("t1"), kind: .restored, orders: [refused], currentUserID: "bob"),
                       .duplicate(orderID: "restore-t1"))
        refused.finishedAt = t0.addingTimeInterval(60)
        XCTAssertEqual(reconciler.match(transaction("t1"), kind: .restored, orders: [refused], currentUserID: "bob"),
                       .newOrder(userID: "bob", source: .restore))
        // Never for its own user, nor for a store update that is no restore.
        XCTAssertEqual(reconciler.match(transaction("t1"), kind: .restored, orders: [refused], currentUserID: "alice"),
                       .duplicate(orderID: "restore-t1"))
        XCTAssertEqual(reconciler.match(transaction("t1"), orders: [refused], currentUserID: "bob"),
                       .duplicate(orderID: "restore-t1"))
    }

    // MARK: Rule 4: a renewal follows a purchase whose user is known

    /// A paid order of the purchase `t1` made by `source` for `user`, in
    /// `status`; its payment carried the order's token unless `lostToken`.
    private func paidOrder(_ id: String, user: String, source: OrderSource, status: OrderStatus,
                           lostToken: Bool = false) -> Order {
        var paid = order(id, user: user, status: status)
        paid.source = source
        paid.transaction = transaction("t1", token: lostToken ? nil : paid.token)
        return paid
    }

    /// A purchase known here only as a claim the server has not answered (a
    /// purchase from another device or started by the store, credited to
    /// whoever was logged in, or a restore) names no user its renewal may
    /// follow: the renewal of another user's subscription was once credited
    /// to the guessed user, since the server had never seen the renewal.
    func testARenewalOfAPurchaseKnownOnlyAsAnUnansweredClaimIsFlagged() {
        // The app's own purchase is a claim too when its payment lost the
        // token and was matched by time (rule 3): the store may have answered
        // it with another user's purchase of the account.
        for (source, lostToken) in [(OrderSource.otherDevice, true), (.storeInitiated, true), (.restore, false), (.purchase, true)] {
            for status in [OrderStatus.purchased, .needsAttention] {
                let claim = paidOrder("claim-t1", user: "carol", source: source, status: status, lostToken: lostToken)
                for kind in [TransactionUpdate.Kind.purchased, .restored] {
                    XCTAssertEqual(reconciler.match(transaction("t2", originalID: "t1"), kind: kind, orders: [claim], currentUserID: "carol"),
                                   .ambiguous(candidateOrderIDs: [], userID: nil), "\(source), \(status), \(kind)")
                }
            }
        }
    }

    /// Once the server accepted the claim, its user is known: the renewal follows.
    func testARenewalFollowsAClaimTheServerAccepted() {
        for source in [OrderSource.otherDevice, .storeInitiated, .restore, .purchase] {
            for status in [OrderStatus.delivered, .completed] {
                let claim = paidOrder("claim-t1", user: "carol", source: source, status: status, lostToken: true)
                XCTAssertEqual(reconciler.match(transaction("t2", originalID: "t1"), orders: [claim], currentUserID: "bob"),
                               .newOrder(userID: "carol", source: .renewal), "\(source), \(status)")
            }
        }
    }

    /// The app's own purchase, paid with its token, names its user before it
    /// is delivered, and an order of the purchase that names its user wins
    /// over an unanswered claim.
    func testARenewalFollowsAPurchaseWhoseUserIsKnownWhateverClaimsWait() {
        let own = paidOrder("a", user: "alice", source: .purchase, status: .purchased)
        XCTAssertEqual(reconciler.match(transaction("t2", originalID: "t1"), orders: [own], currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal))
        let claim = paidOrder("restore-t1", user: "bob", source: .restore, status: .purchased)
        let delivered = paidOrder("a", user: "alice", source: .purchase, status: .completed)
        XCTAssertEqual(reconciler.match(transaction("t2", originalID: "t1"), kind: .restored, orders: [claim, delivered],
                                        currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal))
    }
}

extension ReconcilerOwnershipRuleTests {
    /// A renewal flagged while the purchase's user was unknown waits for
    /// assign with no user: it names nobody to follow, and it does not hide
    /// the order that does, wherever the candidates list it.
    func testARenewalWaitingForAssignDoesNotHideThePurchasesKnownUser() {
        var flagged = order("unknown-t2", user: "", status: .needsAttention)
        flagged.source = .unknown
        flagged.transaction = transaction("t2", originalID: "t1")
        let accepted = paidOrder("claim-t1", user: "carol", source: .otherDevice, status: .completed, lostToken: true)
        for orders in [[flagged, accepted], [accepted, flagged]] {
            XCTAssertEqual(reconciler.match(transaction("t3", originalID: "t1"), orders: orders, currentUserID: "bob"),
                           .newOrder(userID: "carol", source: .renewal))
        }
        // With no order naming a user, the renewal waits like the one before it.
        let pending = paidOrder("claim-t1", user: "carol", source: .otherDevice, status: .purchased, lostToken: true)
        for orders in [[flagged], [flagged, pending]] {
            XCTAssertEqual(reconciler.match(transaction("t3", originalID: "t1"), orders: orders, currentUserID: "bob"),
                           .ambiguous(candidateOrderIDs: [], userID: nil))
        }
    }
}
