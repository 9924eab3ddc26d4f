import Foundation

/// Where an order's values are kept: one box that copies of the order share
/// until one of them changes.
extension Order {
    /// Whether two orders hold the same values, every field compared.
    public static func == (lhs: Order, rhs: Order) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    /// Hashes every field, as equality compares them.
    public func hash(into hasher: inout Hasher) {
        box.fields.hash(into: &hasher)
    }

    /// The order's stored values, in one place for ``OrderBox``.
    struct Fields: Hashable, Sendable {
        var schemaVersion: Int
        var id: String
        var token: String?
        var productID: String
        var productType: ProductType?
        var subscriptionGroupID: String?
        var userID: String
        var quantity: Int
        var source: OrderSource
        var status: OrderStatus
        var createdAt: Date
        var paymentBeganAt: Date?
        var paymentFinishedAt: Date?
        var updatedAt: Date
        var verificationAttempts: Int
        var nextAttemptAt: Date?
        var hint: String?
        var lastErrorCode: PurchaseKitError.Code?
        var storeFailureReason: StoreFailureReason?
        var transaction: StoreTransaction?
        var finishedAt: Date?
        var metadata: [String: String]
    }
}
