import Foundation

/// Something the user owns now.
public struct Entitlement: Sendable, Hashable {
    /// The product.
    public var productID: String
    /// Its type (non-consumable or subscription).
    public var productType: ProductType
    /// The order that grants it.
    public var orderID: String
    /// The transaction that grants it.
    public var transactionID: String
    /// When a subscription period ends; nil for a non-consumable.
    public var expirationDate: Date?
}

/// Where a user's subscription in one group stands. ``SubscriptionGroupStatus``
/// adds its expiration date, whether it renews and the end of a grace period.
public enum SubscriptionStatus: String, Sendable, Hashable, Codable {
    /// Paid and current.
    case subscribed
    /// The period ended and it did not renew.
    case expired
    /// Renewal failed, but the store grants access for a grace period.
    case inGracePeriod
    /// Renewal failed and the store keeps trying to charge; no access.
    case inBillingRetry
    /// The store took it back.
    case revoked
}
