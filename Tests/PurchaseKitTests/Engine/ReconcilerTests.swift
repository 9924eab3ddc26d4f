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

    func testTimeWindowBoundsTheMatch() {
        // Began after the purchase (beyond tolerance): not a candidate.
        let late = [order("a", began: 200)]
        XCTAssertEqual(reconciler.match(transaction(at: 10), orders: late, currentUserID: "u1"), .newOrder(userID: "u1", source: .otherDevice))
        // Within tolerance: a candidate.
        XCTAssertEqual(reconciler.match(transaction(at: 10), orders: [order("a", began: 50)], currentUserID: "u1"), .order(orderID: "a"))
        // Began too long before: outside the window.
        XCTAssertEqual(reconciler.match(transaction(at: 7200), orders: [order("a")], currentUserID: nil),
                       .ambiguous(candidateOrderIDs: [], userID: nil))
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
        XCTAssertEqual(reconciler.match(transaction("t2", originalID: "t1"), orders: [first, waiting], currentUserID: "bob"),
                       .newOrder(userID: "alice", source: .renewal))
    }

    func testUnsolicitedPurchaseGoesToTheCurrentUserOrWaits() {
        XCTAssertEqual(reconciler.match(transaction(), orders: [], currentUserID: "carol"), .newOrder(userID: "carol", source: .otherDevice))
        XCTAssertEqual(reconciler.match(transaction(), orders: [], currentUserID: nil), .ambiguous(candidateOrderIDs: [], userID: nil))
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
}
