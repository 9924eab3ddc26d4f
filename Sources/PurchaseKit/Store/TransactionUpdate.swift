import Foundation

/// One report from the store about a payment or a transaction. The store may
/// send the same report twice, late, or out of order; the engine copes.
public struct TransactionUpdate: Sendable, Hashable {
    /// What the store reports.
    public enum Kind: Sendable, Hashable {
        /// The store is processing the payment.
        case purchasing
        /// Waiting for Ask to Buy approval.
        case deferred
        /// Waiting for the user to act outside the app (new terms, payment
        /// method); the purchase completes later with `purchased`.
        case interrupted
        /// The store took a change of subscription within a group that begins
        /// at the current period's renewal date (a downgrade, or a crossgrade
        /// to another duration); nothing is charged now, and the new
        /// product's transaction (`purchased`, this payment's token) arrives then.
        case scheduled
        /// The user paid; `transaction` is set.
        case purchased
        /// A restored transaction; `transaction` is set.
        case restored
        /// The user cancelled.
        case cancelled
        /// The store refused the payment.
        case failed(StoreFailureReason)
        /// The store took a transaction back; `transaction` carries the revocation date and reason.
        case revoked
    }

    /// What the store reports.
    public var kind: Kind
    /// The product concerned.
    public var productID: String
    /// The order token of the payment, when the store kept it.
    public var orderToken: String?
    /// The transaction, for `purchased`, `restored` and `revoked`.
    public var transaction: StoreTransaction?
    /// For `failed` and `cancelled`: the store's id of the unpaid payment when
    /// the store keeps it in its queue until the app finishes it (StoreKit 1's
    /// failed `SKPaymentTransaction`). The engine passes it to
    /// ``PaymentQueue/finish(transactionID:)`` once the order's failure is
    /// saved. Nil when the store keeps nothing to finish (StoreKit 2).
    public var paymentID: String?
    /// When the store made the report.
    public var date: Date
    /// Whether the store started the purchase, not the app (a promoted in-app
    /// purchase bought on the App Store): a paid transaction no order claims
    /// then becomes a `storeInitiated` order, and is never matched by time to
    /// an order waiting for a payment, since it never carried a token.
    public var isStoreInitiated: Bool

    /// Creates an update as a store reports it.
    public init(kind: Kind, productID: String, orderToken: String?, transaction: StoreTransaction? = nil,
                paymentID: String? = nil, date: Date, isStoreInitiated: Bool = false) {
        self.kind = kind
        self.productID = productID
        self.orderToken = orderToken
        self.transaction = transaction
        self.paymentID = paymentID
        self.date = date
        self.isStoreInitiated = isStoreInitiated
    }
}

extension TransactionUpdate: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "kind": kind, "productID": productID, "orderToken": orderToken == nil ? "none" : "<redacted>",
            "transaction": transaction as Any, "paymentID": paymentID as Any, "date": date,
            "isStoreInitiated": isStoreInitiated,
        ], displayStyle: .struct)
    }

    public var description: String {
        var text = "TransactionUpdate(\(kind), productID: \(productID), orderToken: \(orderToken == nil ? "none" : "<redacted>")"
        if let transaction { text += ", transactionID: \(transaction.id)" }
        if let paymentID { text += ", paymentID: \(paymentID)" }
        if isStoreInitiated { text += ", storeInitiated" }
        return text + ")"
    }
}
