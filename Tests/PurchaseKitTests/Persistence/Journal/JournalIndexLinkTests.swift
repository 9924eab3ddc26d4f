import Foundation
import XCTest
@testable import PurchaseKit

/// A put that keeps an order's transaction, token, purchase and user writes
/// no link again; these pin that the links stand all the same, and that an
/// order another put displaced claims its links back at its next put.
final class JournalIndexLinkTests: XCTestCase {
    private func order(_ id: String, user: String = "u-1", transactionID: String? = nil, original: String? = nil,
                       token: String? = nil, status: OrderStatus = .purchased) -> Order {
        var order = makeOrder(id, user: user, transactionID: transactionID, status: status)
        order.token = token
        if let original { order.transaction?.originalID = original }
        return order
    }

    /// Order `id` holding the shared transaction and token.
    private func sharing(_ id: String, _ status: OrderStatus = .purchased) -> Order {
        order(id, transactionID: "t-shared", token: "k-shared", status: status)
    }

    /// Both shared links point at order `point` (nil: at none).
    private func assertSharedLinks(_ index: JournalIndex, point: String?, _ message: String = "", line: UInt = #line) {
        XCTAssertEqual(index.orderID(forTransaction: "t-shared"), point, message, line: line)
        XCTAssertEqual(index.orderID(forToken: "k-shared"), point, message, line: line)
    }

    func testAnOrderSavedAgainAfterAnotherTookItsLinksClaimsThemBackOnlyThen() {
        var index = JournalIndex()
        index.putOpen(sharing("o-1"))
        index.putOpen(sharing("o-2"))  // Takes both.
        assertSharedLinks(index, point: "o-2")
        // A put of o-2 that keeps them writes no link, and they stand.
        index.putOpen(sharing("o-2", .delivered))
        assertSharedLinks(index, point: "o-2")

        index.putOpen(sharing("o-1", .delivered))
        assertSharedLinks(index, point: "o-1", "the displaced order's save did not claim its transaction back")

        // Once claimed back, o-1 is no longer displaced: o-2 is, and its next save claims them.
        index.putOpen(sharing("o-1", .completed))
        XCTAssertEqual(index.orderID(forTransaction: "t-shared"), "o-1")
        index.putOpen(sharing("o-2", .completed))
        assertSharedLinks(index, point: "o-2")
    }

    func testAPutStraightIntoTheArchiveClaimsLinksAndMovesTheOrderBetweenItsUsersLists() {
        var index = JournalIndex()
        XCTAssertEqual(index.orderIDs(forUser: "u-1"), [])  // The users are indexed from here on.
        index.putOpen(sharing("o-1"))
        index.putOpen(sharing("o-2"))
        let completed = sharing("o-1", .completed)
        index.putStored(OrderBinaryCoding.Keys(completed), bytes: Data([1]), place: .archived)
        assertSharedLinks(index, point: "o-1", "a save into the archive claims as a save does")
        XCTAssertEqual(index.openOrders(forUser: "u-1").map(\.id), ["o-2"])
        XCTAssertEqual(index.orderIDs(forUser: "u-1").sorted(), ["o-1", "o-2"])
        XCTAssertEqual(index.entry(for: "o-1")?.place, .archived)
    }

    func testRemovingTheOrderThatTookTheLinksLeavesThemForTheDisplacedOrdersNextSave() {
        var index = JournalIndex()
        index.putOpen(sharing("o-1"))
        index.putOpen(sharing("o-2"))
        XCTAssertTrue(index.remove(id: "o-2"))
        XCTAssertNil(index.orderID(forTransaction: "t-shared"), "a removed order's link stayed")
        index.putOpen(sharing("o-1", .delivered))
        assertSharedLinks(index, point: "o-1")
    }

    func testSavesThatKeepAUserAndAPurchaseListTheOrderOnceWhereverItMoves() {
        var index = JournalIndex()
        XCTAssertEqual(index.openOrders(forUser: "u-1").map(\.id), [])  // The users are indexed from here on.
        let renewal = order("o-1", transactionID: "t-2", original: "t-1")
        index.putOpen(renewal)
        index.putOpen(order("o-1", transactionID: "t-2", original: "t-1", status: .delivered))
        XCTAssertEqual(index.openOrders(forUser: "u-1").map(\.id), ["o-1"])
        XCTAssertEqual(index.orderIDs(forPurchase: "t-1"), ["o-1"])

        XCTAssertTrue(index.archive(id: "o-1"))
        XCTAssertEqual(index.openOrders(forUser: "u-1").map(\.id), [])
        XCTAssertEqual(index.orderIDs(forUser: "u-1"), ["o-1"])
        index.putOpen(order("o-1", transactionID: "t-2", original: "t-1", status: .completed))  // Reopened by a save.
        XCTAssertEqual(index.openOrders(forUser: "u-1").map(\.id), ["o-1"])
        XCTAssertEqual(index.orderIDs(forUser: "u-1"), ["o-1"])

        index.putOpen(order("o-1", user: "u-2", transactionID: "t-2", original: "t-1", status: .completed))
        XCTAssertEqual(index.orderIDs(forUser: "u-1"), [])
        XCTAssertEqual(index.openOrders(forUser: "u-2").map(\.id), ["o-1"])
        index.putOpen(order("o-1", user: "u-2", transactionID: "t-3", status: .completed))  // No longer a renewal.
        XCTAssertEqual(index.orderIDs(forPurchase: "t-1"), [])
        XCTAssertEqual(index.orderID(forTransaction: "t-3"), "o-1")
        XCTAssertNil(index.orderID(forTransaction: "t-2"))
    }
}
