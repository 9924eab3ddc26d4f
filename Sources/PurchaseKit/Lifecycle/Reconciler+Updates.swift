import Foundation

extension Reconciler {
    /// The order an unpaid update (purchasing, deferred, interrupted,
    /// scheduled, cancelled, failed) is about, among `orders`, or nil.
    ///
    /// By its token when it has one. When the store lost the token: the only
    /// order of that product waiting for the store, but only for an update
    /// that leaves the order waiting (`purchasing`, `deferred`). A guess never
    /// fails or cancels an order: a stray or repeated tokenless failure would
    /// close another user's order, whose own payment (tokenless too) would
    /// then find no order and go to whoever is logged in. Such an order waits
    /// instead; its call is answered at the store timeout and it expires
    /// after the payment expiry, still matchable.
    public func matchUnpaid(_ update: TransactionUpdate, orders: some Sequence<Order>) -> String? {
        if let token = update.orderToken {
            return orders.first { $0.token == token }?.id
        }
        guard update.kind == .purchasing || update.kind == .deferred else { return nil }
        var found: String?
        for order in orders where order.productID == update.productID && order.transaction == nil
            && (order.status == .purchasing || order.status == .deferred) {
            guard found == nil else { return nil }
            found = order.id
        }
        return found
    }
}

extension Reconciler {
    /// The order a revocation is about, among `orders`: the one holding the
    /// revoked transaction. A revocation never matches by token or by time:
    /// the store names the transaction it took back.
    public func matchRevocation(_ transaction: StoreTransaction, orders: some Sequence<Order>) -> String? {
        orders.first { $0.transactionID == transaction.id }?.id
    }
}
