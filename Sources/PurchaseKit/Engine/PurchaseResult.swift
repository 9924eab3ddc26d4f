/// How a purchase call ended. Failures are thrown as ``PurchaseKitError``.
public enum PurchaseResult: Sendable, Equatable {
    /// Paid, delivered and finished. The order carries its transaction.
    case success(Order)
    /// The user cancelled; nothing was charged.
    case userCancelled(Order)
    /// Not settled yet; the outcome arrives later as events.
    case pending(Order, PendingReason)

    /// Why a purchase is pending.
    public enum PendingReason: String, Sendable, Equatable {
        /// Waiting for Ask to Buy approval. Grants nothing until approved.
        case awaitingApproval
        /// Waiting for the user to complete an action with the store.
        case actionRequired
        /// A downgrade, or a crossgrade to another duration, within a
        /// subscription group: the user keeps the current product until its
        /// renewal date, when the new one begins and this order is delivered.
        /// Grants nothing until then.
        case subscriptionChangeScheduled
        /// Paid; delivery is being retried. Nothing is lost.
        case deliveryRetrying
        /// The store did not answer within the configured time; the payment may still complete.
        case storeTimeout
        /// The store reported a payment that could be this order's but could
        /// not be matched to it safely (its token was lost and several orders
        /// fit). Nothing is credited by a guess: the transaction waits in
        /// `needsAttention` for ``PurchaseEngine/assign(orderID:toUser:)``.
        case awaitingReview
    }

    /// The order behind the result.
    public var order: Order {
        switch self {
        case .success(let order), .userCancelled(let order), .pending(let order, _): return order
        }
    }
}

/// What happened, broadcast to every subscriber of ``PurchaseEngine/events()``.
public enum PurchaseEvent: Sendable, Equatable {
    /// An order moved from one status to another (`from` is nil for a new order).
    case orderChanged(Order, from: OrderStatus?)
    /// A delivery will be tried again at `at`.
    case retryScheduled(Order, at: Date)
    /// An order needs attention: the retry budget ran out, or it could not be matched safely.
    case needsAttention(Order)
    /// The store revoked a purchase (refund).
    case revoked(Order)
    /// A restore finished.
    case restoreFinished(RestoreResult)
    /// A restore failed.
    case restoreFailed(user: String, PurchaseKitError)
    /// A user's entitlements or consumable balance changed.
    case entitlementsChanged(user: String)
}

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

/// How a payment queue sees a subscription's renewal, when it can tell.
public enum SubscriptionRenewalState: Sendable, Hashable {
    /// Active; it renews (or not) at the end of the period.
    case active(willRenew: Bool)
    /// A renewal failed and the store keeps retrying; access continues until `until`.
    case inGracePeriod(until: Date)
    /// A renewal failed and the store keeps retrying; no access.
    case inBillingRetry
    /// Ended.
    case expired
}
