import Foundation

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
