import XCTest
@testable import PurchaseKit

final class OrderTransitionTableTests: XCTestCase {
    /// The table as the documentation states it, written out independently of
    /// the implementation so that a change to either shows up here.
    private let documented: Set<String> = [
        "created→purchasing", "created→deferred", "created→purchased", "created→needsAttention", "created→failed",
        "created→cancelled",
        "purchasing→deferred", "purchasing→purchased", "purchasing→needsAttention", "purchasing→failed",
        "purchasing→cancelled",
        "deferred→purchasing", "deferred→purchased", "deferred→needsAttention", "deferred→failed", "deferred→cancelled",
        "purchased→delivered", "purchased→rejected", "purchased→needsAttention", "purchased→revoked",
        "needsAttention→purchased", "needsAttention→delivered", "needsAttention→rejected", "needsAttention→revoked",
        "delivered→completed", "delivered→revoked",
        "completed→revoked",
        "failed→purchased", "failed→needsAttention",
        "cancelled→purchased", "cancelled→needsAttention",
    ]

    func testEveryPairOfStatusesIsAcceptedExactlyWhenDocumented() {
        var accepted = 0
        for from in OrderStatus.allCases {
            for to in OrderStatus.allCases {
                let legal = documented.contains("\(from.rawValue)→\(to.rawValue)")
                XCTAssertEqual(OrderTransitionTable.allows(from: from, to: to), legal, "\(from) → \(to)")
                do {
                    try OrderTransitionTable.validate(from: from, to: to, orderID: "o-1")
                    XCTAssertTrue(legal, "\(from) → \(to) was accepted but is not documented")
                    accepted += 1
                } catch {
                    XCTAssertFalse(legal, "\(from) → \(to) was rejected but is documented")
                    XCTAssertEqual(error.code, .invalidTransition)
                    XCTAssertEqual(error.fromStatus, from)
                    XCTAssertEqual(error.toStatus, to)
                    XCTAssertEqual(error.orderID, "o-1")
                    XCTAssertTrue(error.message.contains(from.rawValue) && error.message.contains(to.rawValue), error.message)
                }
            }
        }
        XCTAssertEqual(accepted, documented.count)
        XCTAssertEqual(OrderTransitionTable.allMoves.count, documented.count)
    }

    /// Statuses sort in the order they are declared; the table's masks and
    /// `<` both rely on `ordinal` naming each status's place in `allCases`.
    func testStatusesCompareInTheirDeclaredOrder() {
        for (index, status) in OrderStatus.allCases.enumerated() {
            XCTAssertEqual(status.ordinal, index, "\(status)")
        }
        XCTAssertEqual(OrderStatus.allCases.shuffled().sorted(), OrderStatus.allCases)
        XCTAssertLessThan(OrderStatus.created, OrderStatus.revoked)
        XCTAssertFalse(OrderStatus.purchased < OrderStatus.purchased)
    }

    func testStayingInPlaceIsNeverAMove() {
        for status in OrderStatus.allCases {
            XCTAssertFalse(OrderTransitionTable.allows(from: status, to: status), "\(status)")
        }
    }

    func testIllegalMoveLeavesTheOrderUnchanged() {
        var order = Order(id: "o-2", productID: "p", userID: "u", createdAt: Date(timeIntervalSinceReferenceDate: 0))
        try? order.move(to: .purchasing, at: Date(timeIntervalSinceReferenceDate: 10))
        try? order.move(to: .purchased, at: Date(timeIntervalSinceReferenceDate: 20))
        let before = order
        XCTAssertThrowsError(try order.move(to: .purchasing, at: Date(timeIntervalSinceReferenceDate: 30))) { error in
            let error = error as? PurchaseKitError
            XCTAssertEqual(error?.code, .invalidTransition)
            XCTAssertEqual(error?.fromStatus, .purchased)
            XCTAssertEqual(error?.toStatus, .purchasing)
        }
        XCTAssertEqual(order, before)
        XCTAssertEqual(order.updatedAt, Date(timeIntervalSinceReferenceDate: 20))
    }

    func testFinalAndOwingStatuses() {
        XCTAssertEqual(Set(OrderStatus.allCases.filter(\.isFinal)), [.rejected, .revoked])
        XCTAssertEqual(Set(OrderStatus.allCases.filter(\.owesDelivery)), [.purchased, .needsAttention])
        // Whatever may be archived must owe nothing.
        for status in OrderStatus.allCases where status.isArchivable {
            XCTAssertFalse(status.owesDelivery, "\(status)")
        }
        // needsAttention is never a dead end.
        XCTAssertFalse(OrderTransitionTable.successors(of: .needsAttention).isEmpty)
    }

    func testEveryStatusIsReachableFromCreated() {
        var reached: Set<OrderStatus> = [.created]
        var frontier: [OrderStatus] = [.created]
        while let next = frontier.popLast() {
            for successor in OrderTransitionTable.successors(of: next) where reached.insert(successor).inserted {
                frontier.append(successor)
            }
        }
        XCTAssertEqual(reached, Set(OrderStatus.allCases))
    }
}
