import Foundation

/// Which store environment signed a transaction.
public enum StoreEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    /// Test purchases: Xcode, TestFlight, the sandbox, or a simulated store.
    case sandbox
    /// Real purchases from the App Store.
    case production
    /// Xcode's local StoreKit testing, or the simulator.
    case xcode
}

/// Why the store took a purchase back.
public enum RevocationReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// The developer's app had an issue (a refund for a fault).
    case developerIssue
    /// Any other reason (refund requested by the user, chargeback, ...).
    case other
}

/// Why the store made a transaction.
public enum TransactionReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// The customer paid: a first purchase, or a change of subscription tier
    /// that takes effect at once (an upgrade, or a crossgrade the customer
    /// asked to start now). It shares the original id of the subscription it
    /// changes, yet it is a payment of its own.
    case purchase
    /// The store renewed a subscription. A downgrade, or a crossgrade asked
    /// for the next period, takes effect as a renewal.
    case renewal
}

/// A snapshot of one store transaction, kept on the order as a backup so that
/// delivery can be retried after the store forgot it.
///
/// `description` and `dump` never show the receipt or the order token.
public struct StoreTransaction: Sendable, Hashable, Codable, Identifiable {
    /// The store's unique id for this transaction; the idempotency key of its delivery.
    public var id: String
    /// The id of the first transaction of this purchase (renewals and restores share it).
    public var originalID: String
    /// The product bought.
    public var productID: String
    /// When the store charged the user.
    public var purchaseDate: Date
    /// When a subscription period ends; nil for other products.
    public var expirationDate: Date?
    /// When the store revoked (refunded) the transaction, if it did.
    public var revocationDate: Date?
    /// Why it was revoked.
    public var revocationReason: RevocationReason?
    /// How many units were bought.
    public var quantity: Int
    /// The order token the payment carried (the order id). The store can lose it.
    public var orderToken: String?
    /// The receipt or signed payload: opaque, secret, never logged.
    public var receipt: Data
    /// Where the transaction was made.
    public var environment: StoreEnvironment
    /// Why the store made it, when the store says: it tells a change of tier
    /// paid now (``TransactionReason/purchase``) from a renewal when both
    /// share the subscription's original id and the payment's token was lost.
    /// Nil: the store did not say.
    public var reason: TransactionReason?

    /// Creates a transaction; `originalID` defaults to `id` (a first purchase).
    public init(
        id: String,
        originalID: String? = nil,
        productID: String,
        purchaseDate: Date,
        expirationDate: Date? = nil,
        revocationDate: Date? = nil,
        revocationReason: RevocationReason? = nil,
        quantity: Int = 1,
        orderToken: String? = nil,
        receipt: Data = Data(),
        environment: StoreEnvironment = .sandbox,
        reason: TransactionReason? = nil
    ) {
        self.id = id
        self.originalID = originalID ?? id
        self.productID = productID
        self.purchaseDate = purchaseDate
        self.expirationDate = expirationDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.quantity = quantity
        self.orderToken = orderToken
        self.receipt = receipt
        self.environment = environment
        self.reason = reason
    }

    /// Whether the store has taken this transaction back.
    public var isRevoked: Bool { revocationDate != nil }
}

extension StoreTransaction: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        var parts = ["id: \(id)", "originalID: \(originalID)", "productID: \(productID)", "quantity: \(quantity)",
                     "environment: \(environment.rawValue)", "orderToken: \(orderToken == nil ? "none" : "<redacted>")",
                     "receipt: <\(receipt.count) bytes redacted>"]
        if let expirationDate { parts.append("expires: \(expirationDate)") }
        if let revocationDate { parts.append("revoked: \(revocationDate)") }
        if let reason { parts.append("reason: \(reason.rawValue)") }
        return "StoreTransaction(\(parts.joined(separator: ", ")))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "id": id, "originalID": originalID, "productID": productID, "purchaseDate": purchaseDate,
            "expirationDate": expirationDate as Any, "revocationDate": revocationDate as Any,
            "quantity": quantity, "environment": environment, "reason": reason as Any,
            "orderToken": orderToken == nil ? "none" : "<redacted>", "receipt": "<redacted>",
        ], displayStyle: .struct)
    }
}
