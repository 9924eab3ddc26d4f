import Foundation

/// Where a transaction's values are kept: one box that copies of the
/// transaction share until one of them changes.
extension StoreTransaction {
    /// Whether two transactions hold the same values, every field compared.
    public static func == (lhs: StoreTransaction, rhs: StoreTransaction) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    /// Hashes every field, as equality compares them.
    public func hash(into hasher: inout Hasher) {
        box.fields.hash(into: &hasher)
    }

    /// Reads the same keys, in the same form, as before the values moved into
    /// a box: `Fields` has the transaction's property names, in their order.
    public init(from decoder: any Decoder) throws {
        self.init(fields: try Fields(from: decoder))
    }

    /// Writes each property under its own name, as ``init(from:)`` reads it.
    public func encode(to encoder: any Encoder) throws {
        try box.fields.encode(to: encoder)
    }

    /// The transaction's stored values, in one place for ``StoreTransactionBox``.
    struct Fields: Hashable, Sendable, Codable {
        var id: String
        var originalID: String
        var productID: String
        var purchaseDate: Date
        var expirationDate: Date?
        var revocationDate: Date?
        var revocationReason: RevocationReason?
        var quantity: Int
        var orderToken: String?
        var receipt: Data
        var environment: StoreEnvironment
        var reason: TransactionReason?
    }
}
