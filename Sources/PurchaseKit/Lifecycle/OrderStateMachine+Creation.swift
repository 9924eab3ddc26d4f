import Foundation

// How orders are born, decided here: the engine only saves what these make.
extension OrderStateMachine {
    /// The order of a purchase the app asked for: `created`, with the token
    /// its payment will carry, and what the product is (so that entitlements
    /// and balances never depend on what the store sells later).
    public static func purchaseOrder(id: String, product: StoreProduct, userID: String, token: String, quantity: Int,
                                     source: OrderSource, metadata: [String: String], now: Date) -> Order {
        Order(id: id, productID: product.id, userID: userID, token: token, quantity: quantity,
              productType: product.type, subscriptionGroupID: product.subscription?.groupID,
              source: source, createdAt: now, metadata: metadata)
    }

    /// The id of the order made for a transaction no order was waiting for:
    /// one per source and transaction, so that making it again finds it.
    public static func adoptedOrderID(for transaction: StoreTransaction, source: OrderSource) -> String {
        "\(source.rawValue)-\(transaction.id)"
    }

    /// The order made for a paid transaction no order was waiting for (a
    /// purchase on another device or started by the store, a restore, a
    /// renewal of an unknown purchase): `purchased` and owed a delivery, or,
    /// with an `attention` note, `needsAttention` for the app to look at.
    /// `product` is the store's description, when the engine has it.
    ///
    /// A `restore` order keeps the token its transaction carries: the
    /// reconciler makes one only when no order holds that token, and the
    /// subscription's later renewals, which carry it too, find their user by
    /// it. Without it, a subscription restored on a new device at one of its
    /// renewals (no order there holds its first transaction) would have every
    /// later renewal flagged for assignment although its user is known.
    public static func adoptedOrder(for transaction: StoreTransaction, userID: String, source: OrderSource,
                                    attention: String?, product: StoreProduct?, now: Date) -> Order {
        var order = Order(id: adoptedOrderID(for: transaction, source: source), productID: transaction.productID,
                          userID: userID, token: source == .restore ? transaction.orderToken : nil,
                          quantity: transaction.quantity, productType: product?.type,
                          subscriptionGroupID: product?.subscription?.groupID, source: source,
                          status: attention == nil ? .purchased : .needsAttention, createdAt: now)
        order.transaction = transaction
        order.paymentBeganAt = transaction.purchaseDate
        order.paymentFinishedAt = transaction.purchaseDate
        order.hint = attention
        return order
    }

    /// Whether a duplicate update of an order's paid transaction must be
    /// finished again: the order is delivered and finished (or rejected) and
    /// no longer open, yet the store still reports it — a crash between the
    /// finish and its record, or a late duplicate.
    public static func refinishesDuplicate(of order: Order, isOpen: Bool) -> Bool {
        (order.isFinished || order.status == .rejected) && !isOpen
    }

    /// The order given to `userID` by the app (``Reconciler`` could not tell
    /// whose it was), or nil when it may not be: only an unassigned order can
    /// be assigned, and only to a real user. An order is only ever credited
    /// to its own user, so an assigned one never changes hands.
    public static func assignment(of order: Order, to userID: String, now: Date) -> Order? {
        guard order.userID.isEmpty, !userID.isEmpty else { return nil }
        var assigned = order
        assigned.userID = userID
        assigned.updatedAt = now
        return assigned
    }
}
