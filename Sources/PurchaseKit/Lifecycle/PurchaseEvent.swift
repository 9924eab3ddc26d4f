import Foundation

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
