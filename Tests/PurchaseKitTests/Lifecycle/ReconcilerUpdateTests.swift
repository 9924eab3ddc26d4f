import XCTest
@testable import PurchaseKit

/// Matching the store's unpaid updates (purchasing, deferred, cancelled,
/// failed...) to orders: by token, and without one only to keep an order
/// waiting, never to close it. And revocations, by transaction id only.
final class ReconcilerUpdateTests: XCTestCase {
    private let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    private let reconciler = Reconciler()

    private func order(_ id: String, product: String = "p", status: OrderStatus = .purchasing, paid: Bool = false) -> Order {
        var order = Order(id: id, productID: product, userID: "u-\(id)", token: "tok-\(id)", createdAt: t0)
        order.status = status
        if paid { order.transaction = StoreTransaction(id: "t-\(id)", productID: product, purchaseDate: t0) }
        return order
    }

    private func update(_ kind: TransactionUpdate.Kind, token: String? = nil, product: String = "p") -> TransactionUpdate {
        TransactionUpdate(kind: kind, productID: product, orderToken: token, date: t0)
    }

    private let allKinds: [TransactionUpdate.Kind] = [.purchasing, .deferred, .interrupted, .scheduled, .cancelled, .failed(.unknown)]

    func testATokenFindsItsOrderWhateverTheKind() {
        let orders = [order("a"), order("b", status: .deferred), order("c", status: .failed)]
        for kind in allKinds {
            XCTAssertEqual(reconciler.matchUnpaid(update(kind, token: "tok-b"), orders: orders), "b", "\(kind)")
            XCTAssertEqual(reconciler.matchUnpaid(update(kind, token: "tok-c"), orders: orders), "c", "\(kind)")
            XCTAssertNil(reconciler.matchUnpaid(update(kind, token: "tok-unknown"), orders: orders), "\(kind)")
        }
    }

    func testWithoutATokenOnlyTheOneWaitingOrderIsKeptWaiting() {
        let orders = [order("a"), order("other", product: "q"), order("done", status: .completed, paid: true)]
        XCTAssertEqual(reconciler.matchUnpaid(update(.purchasing), orders: orders), "a")
        XCTAssertEqual(reconciler.matchUnpaid(update(.deferred), orders: orders), "a")
        for kind: TransactionUpdate.Kind in [.interrupted, .scheduled, .cancelled, .failed(.unknown)] {
            XCTAssertNil(reconciler.matchUnpaid(update(kind), orders: orders), "a tokenless \(kind) never closes a guessed order")
        }
    }

    func testWithoutATokenTwoWaitingOrdersAreNeverGuessed() {
        let orders = [order("a"), order("b", status: .deferred)]
        XCTAssertNil(reconciler.matchUnpaid(update(.purchasing), orders: orders))
        XCTAssertNil(reconciler.matchUnpaid(update(.deferred), orders: orders))
        XCTAssertEqual(reconciler.matchUnpaid(update(.deferred), orders: [order("a"), order("b", status: .failed)]), "a",
                       "a failed order is not waiting")
        XCTAssertNil(reconciler.matchUnpaid(update(.purchasing), orders: [order("a", paid: true)]), "a paid order is not waiting")
    }

    func testARevocationFindsOnlyTheOrderHoldingItsTransaction() {
        var sameToken = order("b", paid: false)
        sameToken.token = "tok-a"
        let orders = [order("a", paid: true), sameToken, order("c", status: .completed, paid: true)]
        let revoked = StoreTransaction(id: "t-a", productID: "p", purchaseDate: t0, orderToken: "tok-a")
        XCTAssertEqual(reconciler.matchRevocation(revoked, orders: orders), "a")
        let unknown = StoreTransaction(id: "t-x", productID: "p", purchaseDate: t0, orderToken: "tok-a")
        XCTAssertNil(reconciler.matchRevocation(unknown, orders: orders), "never by token, never by time")
    }

    func testAnOrderBroughtBackToBeRevokedReturnsToTheArchiveOnlyIfItWasNot() {
        var completed = order("c", status: .completed, paid: true)
        completed.finishedAt = t0
        XCTAssertTrue(OrderStateMachine.returnsToArchive(afterRevoking: completed), "the revocation did not apply")
        completed.status = .revoked
        XCTAssertFalse(OrderStateMachine.returnsToArchive(afterRevoking: completed), "revoked: it rests where the engine put it")
        XCTAssertFalse(OrderStateMachine.returnsToArchive(afterRevoking: order("p", status: .purchased, paid: true)),
                       "still owed a delivery")
        XCTAssertFalse(OrderStateMachine.returnsToArchive(afterRevoking: order("r", status: .rejected, paid: true)),
                       "still owed its finish")
        XCTAssertTrue(OrderStateMachine.returnsToArchive(afterRevoking: order("f", status: .failed)), "nothing was paid")
    }
}
