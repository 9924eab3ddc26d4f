import XCTest
@testable import PurchaseKit

/// How orders are born: a purchase the app asked for, a transaction no order
/// was waiting for, an assignment by the app, and duplicates finished again.
final class OrderCreationTests: XCTestCase {
    private let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    private var plus: StoreProduct {
        StoreProduct(id: "plus", type: .autoRenewable, displayName: "Plus", price: 2,
                     subscription: SubscriptionInfo(groupID: "g", period: try! SubscriptionPeriod(iso8601: "P1M")))
    }

    func testAPurchaseOrderStartsCreatedWithItsTokenAndWhatTheProductIs() {
        let order = OrderStateMachine.purchaseOrder(id: "o1", product: plus, userID: "alice", token: "tok", quantity: 1,
                                                    source: .purchase, metadata: ["screen": "store"], now: t0)
        XCTAssertEqual(order.status, .created)
        XCTAssertEqual(order.token, "tok")
        XCTAssertEqual(order.productType, .autoRenewable)
        XCTAssertEqual(order.subscriptionGroupID, "g")
        XCTAssertEqual(order.userID, "alice")
        XCTAssertEqual(order.metadata, ["screen": "store"])
        XCTAssertNil(order.transaction)
    }

    func testAnAdoptedTransactionIsOwedADeliveryOrFlagged() {
        let transaction = StoreTransaction(id: "t9", productID: "plus", purchaseDate: t0.addingTimeInterval(-60))
        let owed = OrderStateMachine.adoptedOrder(for: transaction, userID: "bob", source: .otherDevice, attention: nil,
                                                  product: plus, now: t0)
        XCTAssertEqual(owed.id, "\(OrderSource.otherDevice.rawValue)-t9")
        XCTAssertEqual(owed.status, .purchased)
        XCTAssertEqual(owed.transaction, transaction)
        XCTAssertNil(owed.token, "the store lost or never had a token")
        XCTAssertEqual(owed.paymentBeganAt, transaction.purchaseDate)
        XCTAssertEqual(owed.productType, .autoRenewable)
        XCTAssertNil(owed.hint)

        let flagged = OrderStateMachine.adoptedOrder(for: transaction, userID: "", source: .unknown, attention: "look",
                                                     product: nil, now: t0)
        XCTAssertEqual(flagged.status, .needsAttention)
        XCTAssertEqual(flagged.hint, "look")
        XCTAssertNil(flagged.productType, "unknown product: the queries resolve it later")
        XCTAssertEqual(OrderStateMachine.adoptedOrderID(for: transaction, source: .unknown), flagged.id,
                       "the same transaction makes the same id, so it is found again, never made twice")
    }

    func testOnlyAnUnassignedOrderIsAssignedAndOnlyToARealUser() {
        let transaction = StoreTransaction(id: "t9", productID: "plus", purchaseDate: t0)
        let unassigned = OrderStateMachine.adoptedOrder(for: transaction, userID: "", source: .unknown, attention: "look",
                                                        product: nil, now: t0)
        let assigned = OrderStateMachine.assignment(of: unassigned, to: "carol", now: t0.addingTimeInterval(5))
        XCTAssertEqual(assigned?.userID, "carol")
        XCTAssertEqual(assigned?.updatedAt, t0.addingTimeInterval(5))
        XCTAssertEqual(assigned?.status, .needsAttention, "assigning moves no status; the retry delivers")
        XCTAssertNil(OrderStateMachine.assignment(of: unassigned, to: "", now: t0))
        if let assigned {
            XCTAssertNil(OrderStateMachine.assignment(of: assigned, to: "mallory", now: t0), "never changes hands")
        }
    }

    func testADuplicateIsFinishedAgainOnlyWhenItsOrderIsSettledAndArchived() {
        var order = OrderStateMachine.adoptedOrder(for: StoreTransaction(id: "t1", productID: "plus", purchaseDate: t0),
                                                   userID: "u", source: .otherDevice, attention: nil, product: nil, now: t0)
        XCTAssertFalse(OrderStateMachine.refinishesDuplicate(of: order, isOpen: false), "owed a delivery, not a finish")
        order.status = .completed
        order.finishedAt = t0
        XCTAssertTrue(OrderStateMachine.refinishesDuplicate(of: order, isOpen: false))
        XCTAssertFalse(OrderStateMachine.refinishesDuplicate(of: order, isOpen: true), "an open order finishes through its own step")
        order.finishedAt = nil
        order.status = .rejected
        XCTAssertTrue(OrderStateMachine.refinishesDuplicate(of: order, isOpen: false))
    }
}
