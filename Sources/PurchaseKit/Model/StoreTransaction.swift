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
    /// The values, shared by copies of the transaction until one of them
    /// changes: a transaction travels on its order, its update and the
    /// matching of both, and a copy then costs one reference instead of one
    /// for each of its strings and its receipt.
    private(set) var box: StoreTransactionBox

    /// Gives this transaction a box of its own before a change, when it shares one.
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&box) { box = StoreTransactionBox(box.fields) }
    }

    /// The store's unique id for this transaction; the idempotency key of its delivery.
    public var id: String {
        get { box.fields.id }
        set { makeUnique(); box.fields.id = newValue }
    }
    /// The id of the first transaction of this purchase (renewals and restores share it).
    public var originalID: String {
        get { box.fields.originalID }
        set { makeUnique(); box.fields.originalID = newValue }
    }
    /// The product bought.
    public var productID: String {
        get { box.fields.productID }
        set { makeUnique(); box.fields.productID = newValue }
    }
    /// When the store charged the user.
    public var purchaseDate: Date {
        get { box.fields.purchaseDate }
        set { makeUnique(); box.fields.purchaseDate = newValue }
    }
    /// When a subscription period ends; nil for other products.
    public var expirationDate: Date? {
        get { box.fields.expirationDate }
        set { makeUnique(); box.fields.expirationDate = newValue }
    }
    /// When the store revoked (refunded) the transaction, if it did.
    public var revocationDate: Date? {
        get { box.fields.revocationDate }
        set { makeUnique(); box.fields.revocationDate = newValue }
    }
    /// Why it was revoked.
    public var revocationReason: RevocationReason? {
        get { box.fields.revocationReason }
        set { makeUnique(); box.fields.revocationReason = newValue }
    }
    /// How many units were bought.
    public var quantity: Int {
        get { box.fields.quantity }
        set { makeUnique(); box.fields.quantity = newValue }
    }
    /// The order token the payment carried (the order id). The store can lose it.
    public var orderToken: String? {
        get { box.fields.orderToken }
        set { makeUnique(); box.fields.orderToken = newValue }
    }
    /// The receipt or signed payload: opaque, secret, never logged.
    public var receipt: Data {
        get { box.fields.receipt }
        set { makeUnique(); box.fields.receipt = newValue }
    }
    /// Where the transaction was made.
    public var environment: StoreEnvironment {
        get { box.fields.environment }
        set { makeUnique(); box.fields.environment = newValue }
    }
    /// Why the store made it, when the store says: it tells a change of tier
    /// paid now (``TransactionReason/purchase``) from a renewal when both
    /// share the subscription's original id and the payment's token was lost.
    /// Nil: the store did not say.
    public var reason: TransactionReason? {
        get { box.fields.reason }
        set { makeUnique(); box.fields.reason = newValue }
    }

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
        self.init(fields: Fields(
            id: id, originalID: originalID ?? id, productID: productID, purchaseDate: purchaseDate,
            expirationDate: expirationDate, revocationDate: revocationDate, revocationReason: revocationReason,
            quantity: quantity, orderToken: orderToken, receipt: receipt, environment: environment, reason: reason))
    }

    /// A transaction holding `fields` (the initializer above, and ``init(from:)``).
    init(fields: Fields) {
        box = StoreTransactionBox(fields)
    }

    /// Whether the store has taken this transaction back.
    public var isRevoked: Bool { revocationDate != nil }
}

/// Where a ``StoreTransaction``'s values live. A transaction changes its box
/// only when no other transaction shares it (copy on write), so a box is never
/// changed while two threads can see it.
///
/// `@unchecked Sendable` is safe: `fields` is written only in this file, by
/// the setters of the one transaction that holds the box, after
/// `makeUnique()`.
final class StoreTransactionBox: @unchecked Sendable {
    @exclusivity(unchecked) fileprivate(set) var fields: StoreTransaction.Fields

    init(_ fields: StoreTransaction.Fields) { self.fields = fields }
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
