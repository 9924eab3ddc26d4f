import Foundation
@testable import PurchaseKit

/// Alice's monthly subscription on a store account other app users share:
/// what the reconciler's tests of changes of tier start from.
enum AlicesSubscription {
    /// When alice bought it.
    static let start = Date(timeIntervalSinceReferenceDate: 800_000_000)

    /// Her order, bought and delivered: transaction `m1`, with its token.
    static func monthly(reason: TransactionReason? = nil) -> Order {
        var order = Order(id: "monthly", productID: "plus.monthly", userID: "alice", token: "tok-monthly", createdAt: start)
        order.status = .completed
        order.transaction = StoreTransaction(id: "m1", productID: "plus.monthly", purchaseDate: start, orderToken: "tok-monthly",
                                             reason: reason)
        return order
    }

    /// A transaction of `product` in her purchase (original id `m1`),
    /// `offset` seconds after it, without a token.
    static func transaction(_ id: String, product: String, at offset: TimeInterval,
                            reason: TransactionReason? = nil) -> StoreTransaction {
        StoreTransaction(id: id, originalID: "m1", productID: product, purchaseDate: start.addingTimeInterval(offset),
                         reason: reason)
    }
}
