import XCTest
@testable import PurchaseKit

final class ReconcilerTests: XCTestCase {
    private let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    private let reconciler = Reconciler(clockTolerance: 60, matchingWindow: 3600)

    private func order(_ id: String, user: String = "u1", product: String = "p", status: OrderStatus = .purchasing,
                       token: String? = nil, began: TimeInterval = 0, transactionID: String? = nil, originalID: String? = nil) -> Order {
        var order = Order(id: id, productID: product, userID: user, token: token ?? "tok-\(id)", createdAt: t0)
        order.status = status
        order.paymentBeganAt = t0.addingTimeInterval(began)
        if let transactionID {
            order.transaction = StoreTransaction(id: transactionID, originalID: originalID, productID: product, purchaseDate: t0)
        }
        return order
    }

    private func transaction(_ id: String = "t1", product: String = "p", token: String? = nil, at offset: TimeInterval = 10,
                             originalID: String? = nil) -> StoreTransaction {
        StoreTransaction(id: id, originalID: originalID, productID: product, purchaseDate: t0.addingTimeInterval(offset), orderToken: token)
    }

    func testKnownTransactionIsADuplicate() {
        let orders = [order("a", status: .completed, transactionID: "t1")]
        XCTAssertEqual(reconciler.match(transaction(token: "tok-a"), orders: orders, currentUserID: "u1"), .duplicate(orderID: "a"))
    }

    func testTokenWins() {
        let orders = [order("a"), order("b")]
        XCTAssertEqual(reconciler.match(transaction(token: "tok-b"), orders: orders, currentUserID: nil), .order(orderID: "b"))
    }

    func testLostTokenWithOneCandidateMatchesByProductAndTime() {
        let orders = [order("a"), order("other-product", product: "q"), order("done", status: .completed, transactionID: "t0")]
        XCTAssertEqual(reconciler.match(transaction(), orders: orders, currentUserID: nil), .order(orderID: "a"))
    }

    func testLostTokenWithTwoCandidatesIsNeverGuessed() {
        let sameUser = [order("a"), order("b", status: .deferred)]
        XCTAssertEqual(reconciler.match(transaction(), orders: sameUser, currentUserID: "u1"),
                       .ambiguous(candidateOrderIDs: ["a", "b"], userID: "u1"))
        let twoUsers = [order("a"), order("b", user: "u2")]
        XCTAssertEqual(reconciler.match(transaction(), orders: twoUsers, currentUserID: "u1"),
                       .ambiguous(candidateOrderIDs: ["a", "b"], userID: nil))
    }

    func testAStoreInitiatedPurchaseIsNeverMatchedByTimeAndBecomesAStoreInitiatedOrder() {
        // An order of the same product waits for its payment: a tokenless purchase would be
        // matched to it by time, but one the store started is not that order's payment.
        let waiting = [order("a")]
        XCTAssertEqual(reconciler.match(transaction(), orders: waiting, currentUserID: "u1"), .order(orderID: "a"))
        XCTAssertEqual(reconciler.match(transaction(), orders: waiting, currentUserID: "u1", storeInitiated: true),
                       .newOrder(userID: "u1", source: .storeInitiated))
        XCTAssertEqual(reconciler.match(transaction(), orders: [], currentUserID: "u1"), .newOrder(userID: "u1", source: .otherDevice))
        // Nobody logged in: never guessed.
        XCTAssertEqual(reconciler.match(transaction(), orders: [], currentUserID: nil, storeInitiated: true),
                       .ambiguous(candidateOrderIDs: [], userID: nil))
        // Known already: still a duplicate.
        let known = [order("a", status: .completed, transactionID: "t1")]
        XCTAssertEqual(reconciler.match(transaction(), orders: known, currentUserID: "u1", storeInitiated: true),
                       .duplicate(orderID: "a"))
    }

    func testTimeWindowBoundsTheMatch() {
        // Began after the purchase (beyond tolerance): not a candidate.
        let late = [order("a", began: 200)]
        XCTAssertEqual(reconciler.match(transaction(at: 10), orders: late, currentUserID: "u1"), .newOrder(userID: "u1", source: .otherDevice))
        // Within tolerance: a candidate.
        XCTAssertEqual(reconciler.match(transaction(at: 10), orders: [order("a", began: 50)], currentUserID: "u1"), .order(orderID: "a"))
        // Began too long before: outside the window.
        XCTAssertEqual(reconciler.match(transaction(at: 7200), orders: [order("a")], currentUserID: nil),
                       .ambiguous(candidateOrderIDs: [], userID: nil))
        // Outside the window, an order of another user waiting for a payment
        // (the phone's clock may be off by any amount): never the logged-in user's.
        XCTAssertEqual(reconciler.match(transaction(at: 10), orders: late, currentUserID: "bob"),
                       .ambiguous(candidateOrderIDs: ["a"], userID: nil))
        XCTAssertEqual(reconciler.match(transaction(at: 7200), orders: [order("a")], currentUserID: "bob"),
                       .ambiguous(candidateOrderIDs: ["a"], userID: nil))
        // Only the logged-in user's own orders wait: the payment is theirs either way.
        XCTAssertEqual(reconciler.match(transaction(at: 7200), orders: [order("a")], currentUserID: "u1"),
                       .newOrder(userID: "u1", source: .otherDevice))
    }

    func testRenewalKeepsTheUserOfTheFirstPurchase() {
        let first = order("a", user: "alice", status: .completed, transactionID: "t1")
        // With the token of the first purchase.
        XCTAssertEqual(reconciler.match(transaction("t2", token: "tok-a", originalID: "t1"), orders: [first], currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal))
        // Without a token.
        XCTAssertEqual(reconciler.match(transaction("t3", originalID: "t1"), orders: [first], currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal))
    }

    func testARenewalIsNeverMatchedToAWaitingOrderByTime() {
        let first = order("a", user: "alice", status: .completed, transactionID: "t1")
        let waiting = order("b", user: "bob")
        // Never bob's order by time; while it waits, not alice's either
        // without the token: it may be the change bob's order asked for
        // (see ReconcilerTierChangeTests).
        XCTAssertEqual(reconciler.match(transaction("t2", originalID: "t1"), orders: [first, waiting], currentUserID: "bob"),
                       .ambiguous(candidateOrderIDs: ["b"], userID: nil))
        XCTAssertEqual(reconciler.match(transaction("t2", token: "tok-a", originalID: "t1"), orders: [first, waiting],
                                        currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal))
    }

    func testARenewalOfAPurchaseWaitingForAssignmentWaitsToo() {
        let unassigned = order("unknown-t1", user: "", status: .needsAttention, transactionID: "t1")
        for kind in [TransactionUpdate.Kind.purchased, .restored] {
            XCTAssertEqual(reconciler.match(transaction("t2", originalID: "t1"), kind: kind, orders: [unassigned], currentUserID: "bob"),
                           .ambiguous(candidateOrderIDs: [], userID: nil), "never a renewal order of nobody, nor of whoever is logged in")
        }
    }

    func testARenewalOfAPurchaseEveryOrderOfWhichWasRejectedIsNeverGuessed() {
        for refused in [order("a", user: "alice", status: .rejected, transactionID: "t1"),
                        order("restore-t1", user: "bob", status: .rejected, transactionID: "t1")] {
            for kind in [TransactionUpdate.Kind.purchased, .restored] {
                XCTAssertEqual(reconciler.match(transaction("t2", originalID: "t1"), kind: kind, orders: [refused], currentUserID: "bob"),
                               .ambiguous(candidateOrderIDs: [], userID: nil), "\(refused.id), \(kind)")
            }
        }
    }

    func testUnsolicitedPurchaseGoesToTheCurrentUserOrWaits() {
        XCTAssertEqual(reconciler.match(transaction(), orders: [], currentUserID: "carol"), .newOrder(userID: "carol", source: .otherDevice))
        XCTAssertEqual(reconciler.match(transaction(), orders: [], currentUserID: nil), .ambiguous(candidateOrderIDs: [], userID: nil))
    }

    func testWithOrdersThatCouldNotBeReadOnlyAKnownOrderIsMatched() {
        let waiting = [order("a", user: "alice"), order("b", user: "alice", transactionID: "t0")]
        XCTAssertEqual(reconciler.match(transaction(token: "tok-a"), orders: waiting, currentUserID: "bob", ordersMayBeMissing: true),
                       .order(orderID: "a"))
        XCTAssertEqual(reconciler.match(transaction("t0"), orders: waiting, currentUserID: "bob", ordersMayBeMissing: true),
                       .duplicate(orderID: "b"))
        // An unknown token, a lost one (time matching), a renewal, an unsolicited purchase: it may be an unread order's.
        for unclaimed in [transaction(token: "someone-elses"), transaction(), transaction("t2", originalID: "t0")] {
            XCTAssertEqual(reconciler.match(unclaimed, orders: waiting, currentUserID: "bob", ordersMayBeMissing: true), .undetermined)
            XCTAssertEqual(reconciler.match(unclaimed, kind: .restored, orders: [], currentUserID: "bob", ordersMayBeMissing: true),
                           .undetermined)
        }
    }

    func testATokenOfAnotherUsersOrderIsCreditedToThatUser() {
        let orders = [order("a", user: "alice")]
        XCTAssertEqual(reconciler.match(transaction(token: "tok-a"), orders: orders, currentUserID: "bob"), .order(orderID: "a"))
    }

    func testAnUnknownTokenIsNeverTimeMatchedToAWaitingOrder() {
        let waiting = [order("a", user: "alice")]
        XCTAssertEqual(reconciler.match(transaction(token: "someone-elses"), orders: waiting, currentUserID: "alice"),
                       .ambiguous(candidateOrderIDs: [], userID: nil), "a token no order holds is never guessed onto the current user")
        XCTAssertEqual(reconciler.match(transaction(token: "someone-elses"), orders: waiting, currentUserID: nil),
                       .ambiguous(candidateOrderIDs: [], userID: nil))
    }

    // MARK: The payment an update answers

    func testAnAnswerWithATransactionAnotherOrderHoldsFailsThePayerAlreadyOwned() {
        let orders = [order("a", user: "alice", status: .completed, transactionID: "t1"), order("b", user: "bob")]
        XCTAssertEqual(reconciler.match(transaction(token: "tok-a"), answering: "tok-b", orders: orders, currentUserID: nil),
                       .alreadyOwned(orderID: "b"))
    }

    func testAnAnswerThatOvertakesTheOwnersUpdateNeverPaysTheOwnerOnTheAnswersBehalf() {
        // Alice's order still waits for its own update; bob's payment is answered with her transaction.
        let orders = [order("a", user: "alice"), order("b", user: "bob")]
        XCTAssertEqual(reconciler.match(transaction(token: "tok-a"), answering: "tok-b", orders: orders, currentUserID: "bob"),
                       .alreadyOwned(orderID: "b"))
        // Alice's own update then pays her order.
        XCTAssertEqual(reconciler.match(transaction(token: "tok-a"), answering: "tok-a", orders: orders, currentUserID: "bob"),
                       .order(orderID: "a"))
    }

    func testAnAnswerWithATransactionOfAnUnknownTokenFailsThePayer() {
        XCTAssertEqual(reconciler.match(transaction(token: "another-device"), answering: "tok-b", orders: [order("b", user: "bob")],
                                        currentUserID: "bob"),
                       .alreadyOwned(orderID: "b"))
    }

    func testAnAnswerWithoutATransactionTokenThatNobodyHoldsIsLeftToTheOtherRules() {
        // It may be the payment's own charge whose token the store lost.
        XCTAssertEqual(reconciler.match(transaction(), answering: "tok-b", orders: [order("b", user: "bob")], currentUserID: nil),
                       .order(orderID: "b"))
    }

    func testAnAnswerForAPaidOrderOrAnotherProductIsNotAnAlreadyOwnedAnswer() {
        let paid = [order("b", user: "bob", status: .completed, transactionID: "t0")]
        XCTAssertEqual(reconciler.match(transaction(token: "tok-a"), answering: "tok-b", orders: paid, currentUserID: "carol"),
                       .ambiguous(candidateOrderIDs: [], userID: nil), "a token no order holds is never guessed")
        let otherProduct = [order("b", user: "bob", product: "q")]
        XCTAssertEqual(reconciler.match(transaction(token: "tok-a"), answering: "tok-b", orders: otherProduct, currentUserID: nil),
                       .ambiguous(candidateOrderIDs: [], userID: nil))
    }

    // MARK: Restored transactions

    func testARestoredTransactionGoesToTheOrderItsTokenNames() {
        let orders = [order("a", user: "alice")]
        XCTAssertEqual(reconciler.match(transaction(token: "tok-a"), kind: .restored, orders: orders, currentUserID: "bob"),
                       .order(orderID: "a"))
    }

    func testARestoredTransactionNobodyClaimsBecomesARestoreOrderOfTheRestoringUser() {
        XCTAssertEqual(reconciler.match(transaction(token: "first-device"), kind: .restored, orders: [], currentUserID: "bob"),
                       .newOrder(userID: "bob", source: .restore))
        let first = order("a", user: "alice", status: .completed, transactionID: "t1")
        XCTAssertEqual(reconciler.match(transaction("t2", token: "tok-a", originalID: "t1"), kind: .restored, orders: [first],
                                        currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal))
    }

    /// A restore is the restoring user's claim, but a tokenless transaction
    /// nobody holds, while another user's order of its product waits for a
    /// payment (or waited until it expired), may be that order's: the
    /// restoring user's claim is no better, so it is never guessed.
    func testARestoredTokenlessTransactionIsNeverGuessedWhileAnotherUsersOrderOfItsProductWaits() {
        var expired = order("a", user: "alice", status: .failed, began: -86_400)
        expired.lastErrorCode = .timeout
        for waiting in [order("a", user: "alice", began: -86_400), order("a", user: "alice", status: .deferred, began: -86_400), expired] {
            XCTAssertTrue(waiting.status != .failed || waiting.isExpiredPayment, "an expired payment")
            // A first purchase outside the matching window, and a renewal of a purchase unknown here.
            for unclaimed in [transaction(), transaction("t2", originalID: "t1")] {
                XCTAssertEqual(reconciler.match(unclaimed, kind: .restored, orders: [waiting], currentUserID: "bob"),
                               .ambiguous(candidateOrderIDs: ["a"], userID: nil), "\(waiting.status), \(unclaimed.id)")
            }
        }
        // The restoring user's own waiting order, another product's, or none: the restoring user's.
        for orders in [[order("b", user: "bob", began: -86_400)], [order("a", user: "alice", product: "q", began: -86_400)], []] {
            for unclaimed in [transaction(), transaction("t2", originalID: "t1")] {
                XCTAssertEqual(reconciler.match(unclaimed, kind: .restored, orders: orders, currentUserID: "bob"),
                               .newOrder(userID: "bob", source: .restore), "\(orders.map(\.id)), \(unclaimed.id)")
            }
        }
    }

    func testATokenOnTwoOrdersIsNeverGuessed() {
        let twice = [order("a", user: "alice", token: "tok-x"), order("b", user: "bob", token: "tok-x")]
        XCTAssertEqual(reconciler.match(transaction(token: "tok-x"), orders: twice, currentUserID: "bob"),
                       .ambiguous(candidateOrderIDs: ["a", "b"], userID: nil))
        XCTAssertEqual(reconciler.match(transaction(token: "tok-a"), answering: "tok-x", orders: twice, currentUserID: nil),
                       .ambiguous(candidateOrderIDs: [], userID: nil), "nor is the payment an answer is for")
    }
}
