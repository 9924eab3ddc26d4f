import Foundation

/// The persistent record of one purchase: what was bought, by whom, where it
/// stands, and a backup of the store transaction so delivery can be retried
/// after the store forgot it.
///
/// Orders are values; the engine changes them only through
/// ``OrderTransitionTable``. `description` and `dump` never show the receipt or
/// the order token.
public struct Order: Sendable, Hashable, Identifiable {
    /// The schema version this build writes. Older documents still decode.
    public static let currentSchemaVersion = 1

    /// The largest verification count a decoded order keeps; a stored value
    /// beyond it (or below zero) is damage, and is clamped so that the retry
    /// arithmetic over it cannot overflow.
    public static let maximumVerificationAttempts = 1_000_000_000

    /// The values, shared by copies of the order until one of them changes:
    /// an order is passed, stored and answered many times for each time it
    /// changes, and a copy then costs one reference instead of some twenty.
    private(set) var box: OrderBox

    /// Gives this order a box of its own before a change, when it shares one.
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&box) { box = OrderBox(box.fields) }
    }

    /// The schema version the order was decoded from (or `currentSchemaVersion`).
    public package(set) var schemaVersion: Int {
        get { box.fields.schemaVersion }
        set { makeUnique(); box.fields.schemaVersion = newValue }
    }
    /// The order id, usually made by the app's server. Safe to log.
    public package(set) var id: String {
        get { box.fields.id }
        set { makeUnique(); box.fields.id = newValue }
    }
    /// The secret token that travels on the payment (`appAccountToken` /
    /// `applicationUsername`) so the store's transaction can be matched back to
    /// this order. Kept apart from the id so that logs can name orders without
    /// leaking tokens; a UUID, as StoreKit 2 requires. Nil for orders made from
    /// transactions (renewals, purchases made elsewhere), except a restore
    /// that no order claimed: it keeps its transaction's token, so that the
    /// restored subscription's renewals find their user by it.
    public package(set) var token: String? {
        get { box.fields.token }
        set { makeUnique(); box.fields.token = newValue }
    }
    /// The product bought.
    public package(set) var productID: String {
        get { box.fields.productID }
        set { makeUnique(); box.fields.productID = newValue }
    }
    /// What kind of product was bought, recorded when the order is made, so
    /// that entitlements and balances are answered from the order itself even
    /// after the store stops selling the product. Nil in documents written
    /// before it existed, and for a product the engine never loaded.
    public package(set) var productType: ProductType? {
        get { box.fields.productType }
        set { makeUnique(); box.fields.productType = newValue }
    }
    /// The subscription group of a subscription, recorded with ``productType``.
    public package(set) var subscriptionGroupID: String? {
        get { box.fields.subscriptionGroupID }
        set { makeUnique(); box.fields.subscriptionGroupID = newValue }
    }
    /// The user the order belongs to. It is only ever credited to this user.
    public package(set) var userID: String {
        get { box.fields.userID }
        set { makeUnique(); box.fields.userID = newValue }
    }
    /// How many units.
    public package(set) var quantity: Int {
        get { box.fields.quantity }
        set { makeUnique(); box.fields.quantity = newValue }
    }
    /// How the order came to exist.
    public package(set) var source: OrderSource {
        get { box.fields.source }
        set { makeUnique(); box.fields.source = newValue }
    }
    /// Where it stands.
    public package(set) var status: OrderStatus {
        get { box.fields.status }
        set { makeUnique(); box.fields.status = newValue }
    }
    /// When the order was created.
    public package(set) var createdAt: Date {
        get { box.fields.createdAt }
        set { makeUnique(); box.fields.createdAt = newValue }
    }
    /// When the payment was handed to the store.
    public package(set) var paymentBeganAt: Date? {
        get { box.fields.paymentBeganAt }
        set { makeUnique(); box.fields.paymentBeganAt = newValue }
    }
    /// When the store reported a final payment result (paid, failed, cancelled).
    public package(set) var paymentFinishedAt: Date? {
        get { box.fields.paymentFinishedAt }
        set { makeUnique(); box.fields.paymentFinishedAt = newValue }
    }
    /// When the order last changed.
    public package(set) var updatedAt: Date {
        get { box.fields.updatedAt }
        set { makeUnique(); box.fields.updatedAt = newValue }
    }
    /// How many times the verifier was asked.
    public package(set) var verificationAttempts: Int {
        get { box.fields.verificationAttempts }
        set { makeUnique(); box.fields.verificationAttempts = newValue }
    }
    /// When the next automatic delivery attempt is due, while one is owed.
    public package(set) var nextAttemptAt: Date? {
        get { box.fields.nextAttemptAt }
        set { makeUnique(); box.fields.nextAttemptAt = newValue }
    }
    /// A short human-readable note: the last error or why the order needs attention.
    /// Never contains receipts or tokens.
    public package(set) var hint: String? {
        get { box.fields.hint }
        set { makeUnique(); box.fields.hint = newValue }
    }
    /// The code of the last error, when there was one.
    public package(set) var lastErrorCode: PurchaseKitError.Code? {
        get { box.fields.lastErrorCode }
        set { makeUnique(); box.fields.lastErrorCode = newValue }
    }
    /// The store's reason, when the payment failed.
    public package(set) var storeFailureReason: StoreFailureReason? {
        get { box.fields.storeFailureReason }
        set { makeUnique(); box.fields.storeFailureReason = newValue }
    }
    /// The backup of the store transaction, once there is one.
    public package(set) var transaction: StoreTransaction? {
        get { box.fields.transaction }
        set { makeUnique(); box.fields.transaction = newValue }
    }
    /// When the store transaction was finished.
    public package(set) var finishedAt: Date? {
        get { box.fields.finishedAt }
        set { makeUnique(); box.fields.finishedAt = newValue }
    }
    /// The app's own data for this order.
    public var metadata: [String: String] {
        get { box.fields.metadata }
        set { makeUnique(); box.fields.metadata = newValue }
    }

    /// Creates an order; the engine makes them, an app needs this only for fixtures and imports.
    public init(
        id: String,
        productID: String,
        userID: String,
        token: String? = nil,
        quantity: Int = 1,
        productType: ProductType? = nil,
        subscriptionGroupID: String? = nil,
        source: OrderSource = .purchase,
        status: OrderStatus = .created,
        createdAt: Date,
        metadata: [String: String] = [:]
    ) {
        box = OrderBox(Fields(
            schemaVersion: Self.currentSchemaVersion, id: id, token: token, productID: productID, productType: productType,
            subscriptionGroupID: subscriptionGroupID, userID: userID, quantity: quantity, source: source, status: status,
            createdAt: createdAt, paymentBeganAt: nil, paymentFinishedAt: nil, updatedAt: createdAt, verificationAttempts: 0,
            nextAttemptAt: nil, hint: nil, lastErrorCode: nil, storeFailureReason: nil, transaction: nil, finishedAt: nil,
            metadata: metadata))
    }

    /// The store transaction id, once paid.
    // Read in place: `transaction?.id` would copy the whole transaction out of the box first.
    public var transactionID: String? { box.fields.transaction?.id }

    /// The id of the purchase the order's transaction belongs to (its renewals share it), once paid.
    var originalTransactionID: String? { box.fields.transaction?.originalID }

    /// Whether the order holds a store transaction.
    var isPaid: Bool { box.fields.transaction != nil }

    /// Whether the store transaction has been finished.
    public var isFinished: Bool { finishedAt != nil }
}

extension Order: Codable {
    private enum CodingKeys: String, CodingKey {
        case schemaVersion, id, token, productID, productType, subscriptionGroupID, userID, quantity, source, status,
             createdAt, paymentBeganAt, paymentFinishedAt, updatedAt, verificationAttempts, nextAttemptAt, hint,
             lastErrorCode, storeFailureReason, transaction, finishedAt, metadata
    }

    /// Decodes every schema version up to ``currentSchemaVersion``.
    ///
    /// Schema 0 (documents written before the version field existed) had no
    /// `token`, `quantity`, `source`, `nextAttemptAt`, `lastErrorCode`,
    /// `storeFailureReason`, `finishedAt` or `updatedAt`; they take safe
    /// defaults, and the token is the order id, which is what schema 0 put on
    /// the payment. A newer version is refused rather
    /// than half-read, so a downgrade never silently drops fields.
    ///
    /// `productType` and `subscriptionGroupID` are optional additions to
    /// schema 1: documents without them decode (the queries then ask the store,
    /// or infer from the stored transaction), and a product type this build
    /// does not know reads as nil rather than setting the order aside.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let version = try c.decodeIfPresent(Int.self, forKey: .schemaVersion) ?? 0
        guard version <= Self.currentSchemaVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .schemaVersion, in: c,
                debugDescription: "Order schema version \(version) is newer than the supported \(Self.currentSchemaVersion).")
        }
        self.init(id: "", productID: "", userID: "", createdAt: Date(timeIntervalSinceReferenceDate: 0))
        schemaVersion = version
        id = try c.decode(String.self, forKey: .id)
        token = version == 0 ? id : try c.decodeIfPresent(String.self, forKey: .token)
        productID = try c.decode(String.self, forKey: .productID)
        productType = try c.decodeIfPresent(String.self, forKey: .productType).flatMap(ProductType.init(rawValue:))
        subscriptionGroupID = try c.decodeIfPresent(String.self, forKey: .subscriptionGroupID)
        userID = try c.decode(String.self, forKey: .userID)
        quantity = try c.decodeIfPresent(Int.self, forKey: .quantity) ?? 1
        source = try c.decodeIfPresent(OrderSource.self, forKey: .source) ?? .purchase
        status = try c.decode(OrderStatus.self, forKey: .status)
        createdAt = try c.decode(Date.self, forKey: .createdAt)
        paymentBeganAt = try c.decodeIfPresent(Date.self, forKey: .paymentBeganAt)
        paymentFinishedAt = try c.decodeIfPresent(Date.self, forKey: .paymentFinishedAt)
        updatedAt = try c.decodeIfPresent(Date.self, forKey: .updatedAt) ?? paymentFinishedAt ?? createdAt
        // A damaged counter must not make the retry arithmetic trap; it only paces retries.
        let attempts = try c.decodeIfPresent(Int.self, forKey: .verificationAttempts) ?? 0
        verificationAttempts = min(max(0, attempts), Self.maximumVerificationAttempts)
        nextAttemptAt = try c.decodeIfPresent(Date.self, forKey: .nextAttemptAt)
        hint = try c.decodeIfPresent(String.self, forKey: .hint)
        lastErrorCode = try c.decodeIfPresent(PurchaseKitError.Code.self, forKey: .lastErrorCode)
        storeFailureReason = try c.decodeIfPresent(StoreFailureReason.self, forKey: .storeFailureReason)
        transaction = try c.decodeIfPresent(StoreTransaction.self, forKey: .transaction)
        finishedAt = try c.decodeIfPresent(Date.self, forKey: .finishedAt)
        metadata = try c.decodeIfPresent([String: String].self, forKey: .metadata) ?? [:]
    }

    /// Always writes ``currentSchemaVersion``.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.currentSchemaVersion, forKey: .schemaVersion)
        try c.encode(id, forKey: .id)
        try c.encodeIfPresent(token, forKey: .token)
        try c.encode(productID, forKey: .productID)
        try c.encodeIfPresent(productType, forKey: .productType)
        try c.encodeIfPresent(subscriptionGroupID, forKey: .subscriptionGroupID)
        try c.encode(userID, forKey: .userID)
        try c.encode(quantity, forKey: .quantity)
        try c.encode(source, forKey: .source)
        try c.encode(status, forKey: .status)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encodeIfPresent(paymentBeganAt, forKey: .paymentBeganAt)
        try c.encodeIfPresent(paymentFinishedAt, forKey: .paymentFinishedAt)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encode(verificationAttempts, forKey: .verificationAttempts)
        try c.encodeIfPresent(nextAttemptAt, forKey: .nextAttemptAt)
        try c.encodeIfPresent(hint, forKey: .hint)
        try c.encodeIfPresent(lastErrorCode, forKey: .lastErrorCode)
        try c.encodeIfPresent(storeFailureReason, forKey: .storeFailureReason)
        try c.encodeIfPresent(transaction, forKey: .transaction)
        try c.encodeIfPresent(finishedAt, forKey: .finishedAt)
        try c.encode(metadata, forKey: .metadata)
    }
}

extension Order: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var customMirror: Mirror {
        Mirror(self, children: [
            "id": id, "productID": productID, "productType": productType as Any, "userID": userID, "quantity": quantity, "source": source,
            "status": status, "createdAt": createdAt, "updatedAt": updatedAt,
            "verificationAttempts": verificationAttempts, "hint": hint as Any,
            "token": token == nil ? "none" : "<redacted>", "transaction": transaction as Any,
            "finishedAt": finishedAt as Any, "metadata": metadata,
        ], displayStyle: .struct)
    }

    public var description: String {
        var parts = ["id: \(id)", "productID: \(productID)", "userID: \(userID)", "status: \(status.rawValue)",
                     "source: \(source.rawValue)", "attempts: \(verificationAttempts)"]
        if let transaction { parts.append("transactionID: \(transaction.id)") }
        if isFinished { parts.append("finished") }
        if let hint { parts.append("hint: \(hint)") }
        return "Order(\(parts.joined(separator: ", ")))"
    }

    public var debugDescription: String { description }
}

/// Where an ``Order``'s values live. An order changes its box only when no
/// other order shares it (copy on write), so a box is never changed while two
/// threads can see it.
///
/// `@unchecked Sendable` is safe: `fields` is written only in this file, by
/// the setters of the one order that holds the box, after `makeUnique()`.
final class OrderBox: @unchecked Sendable {
    @exclusivity(unchecked) fileprivate(set) var fields: Order.Fields

    init(_ fields: Order.Fields) { self.fields = fields }
}

extension Order {
    /// Oldest first; the id breaks ties so the order is stable. Every list of
    /// orders the library returns or works through is in this order.
    package static func creationOrder(_ lhs: Order, _ rhs: Order) -> Bool {
        (lhs.createdAt, lhs.id) < (rhs.createdAt, rhs.id)
    }
}
