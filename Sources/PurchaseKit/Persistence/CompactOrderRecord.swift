import Foundation

/// The form an archived order takes in ``FileOrderStore``'s ledger once its
/// retention has passed: the whole order except what nothing depends on.
///
/// Dropped: the receipt (`transaction.receipt`, the bulk of an order and a
/// secret), `metadata` (the app's own data) and `hint` (a note). Kept, for
/// good: everything entitlements, balances, subscription status, renewal
/// attribution, duplicate detection and token resolution read — ids, user,
/// product, quantity, status, source, token, every date, the attempt count,
/// the error code, the store's failure reason, and the transaction's ids,
/// dates, revocation, quantity, token and environment.
///
/// One record is one line of JSON with short keys; fields equal to their
/// usual value are left out (the transaction's original id when it is its own
/// id, its product and quantity when they are the order's, its token when it
/// is the order's), so a typical record is about 300 bytes. Dates are seconds
/// since the Foundation reference date, as in ``OrderCoding``, so they
/// round-trip exactly.
struct CompactOrderRecord: Codable, Equatable {
    /// The order as the ledger gives it back: receipt empty, no metadata, no hint.
    var order: Order

    /// The compact form of `order`.
    init(compacting order: Order) {
        var compact = order
        compact.schemaVersion = Order.currentSchemaVersion
        compact.metadata = [:]
        compact.hint = nil
        compact.transaction?.receipt = Data()
        self.order = compact
    }

    private enum Keys: String, CodingKey {
        case id, user, product, quantity = "qty", status, source, token, created, updated, paymentBegan = "began",
             paymentFinished = "paid", attempts, nextAttempt = "next", errorCode = "error", failure, finished, transaction = "tx"
    }

    private enum TransactionKeys: String, CodingKey {
        case id, original, product, purchased, expires, revoked, reason, quantity = "qty", token, environment = "env"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(order.id, forKey: .id)
        try c.encode(order.userID, forKey: .user)
        try c.encode(order.productID, forKey: .product)
        try c.encode(order.quantity, forKey: .quantity)
        try c.encode(order.status, forKey: .status)
        try c.encode(order.source, forKey: .source)
        try c.encodeIfPresent(order.token, forKey: .token)
        try c.encode(order.createdAt, forKey: .created)
        try c.encode(order.updatedAt, forKey: .updated)
        try c.encodeIfPresent(order.paymentBeganAt, forKey: .paymentBegan)
        try c.encodeIfPresent(order.paymentFinishedAt, forKey: .paymentFinished)
        if order.verificationAttempts != 0 { try c.encode(order.verificationAttempts, forKey: .attempts) }
        try c.encodeIfPresent(order.nextAttemptAt, forKey: .nextAttempt)
        try c.encodeIfPresent(order.lastErrorCode, forKey: .errorCode)
        try c.encodeIfPresent(order.storeFailureReason, forKey: .failure)
        try c.encodeIfPresent(order.finishedAt, forKey: .finished)
        guard let transaction = order.transaction else { return }
        var t = c.nestedContainer(keyedBy: TransactionKeys.self, forKey: .transaction)
        try t.encode(transaction.id, forKey: .id)
        if transaction.originalID != transaction.id { try t.encode(transaction.originalID, forKey: .original) }
        if transaction.productID != order.productID { try t.encode(transaction.productID, forKey: .product) }
        try t.encode(transaction.purchaseDate, forKey: .purchased)
        try t.encodeIfPresent(transaction.expirationDate, forKey: .expires)
        try t.encodeIfPresent(transaction.revocationDate, forKey: .revoked)
        try t.encodeIfPresent(transaction.revocationReason, forKey: .reason)
        if transaction.quantity != order.quantity { try t.encode(transaction.quantity, forKey: .quantity) }
        // Absent: the order's token. Null: none, although the order has one.
        if transaction.orderToken != order.token {
            if let token = transaction.orderToken { try t.encode(token, forKey: .token) } else { try t.encodeNil(forKey: .token) }
        }
        try t.encode(transaction.environment, forKey: .environment)
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        var order = Order(id: try c.decode(String.self, forKey: .id),
                          productID: try c.decode(String.self, forKey: .product),
                          userID: try c.decode(String.self, forKey: .user),
                          token: try c.decodeIfPresent(String.self, forKey: .token),
                          quantity: try c.decode(Int.self, forKey: .quantity),
                          source: try c.decode(OrderSource.self, forKey: .source),
                          status: try c.decode(OrderStatus.self, forKey: .status),
                          createdAt: try c.decode(Date.self, forKey: .created))
        order.updatedAt = try c.decode(Date.self, forKey: .updated)
        order.paymentBeganAt = try c.decodeIfPresent(Date.self, forKey: .paymentBegan)
        order.paymentFinishedAt = try c.decodeIfPresent(Date.self, forKey: .paymentFinished)
        order.verificationAttempts = try c.decodeIfPresent(Int.self, forKey: .attempts) ?? 0
        order.nextAttemptAt = try c.decodeIfPresent(Date.self, forKey: .nextAttempt)
        order.lastErrorCode = try c.decodeIfPresent(PurchaseKitError.Code.self, forKey: .errorCode)
        order.storeFailureReason = try c.decodeIfPresent(StoreFailureReason.self, forKey: .failure)
        order.finishedAt = try c.decodeIfPresent(Date.self, forKey: .finished)
        if c.contains(.transaction) {
            let t = try c.nestedContainer(keyedBy: TransactionKeys.self, forKey: .transaction)
            let id = try t.decode(String.self, forKey: .id)
            var token = order.token
            if t.contains(.token) { token = try t.decodeNil(forKey: .token) ? nil : try t.decode(String.self, forKey: .token) }
            order.transaction = StoreTransaction(
                id: id,
                originalID: try t.decodeIfPresent(String.self, forKey: .original) ?? id,
                productID: try t.decodeIfPresent(String.self, forKey: .product) ?? order.productID,
                purchaseDate: try t.decode(Date.self, forKey: .purchased),
                expirationDate: try t.decodeIfPresent(Date.self, forKey: .expires),
                revocationDate: try t.decodeIfPresent(Date.self, forKey: .revoked),
                revocationReason: try t.decodeIfPresent(RevocationReason.self, forKey: .reason),
                quantity: try t.decodeIfPresent(Int.self, forKey: .quantity) ?? order.quantity,
                orderToken: token,
                receipt: Data(),
                environment: try t.decode(StoreEnvironment.self, forKey: .environment))
        }
        self.order = order
    }
}
