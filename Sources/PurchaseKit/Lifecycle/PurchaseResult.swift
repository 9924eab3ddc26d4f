import Foundation

/// How a purchase call ended. Failures are thrown as ``PurchaseKitError``.
public enum PurchaseResult: Sendable, Equatable {
    /// Paid, delivered and finished. The order carries its transaction.
    case success(Order)
    /// The user cancelled; nothing was charged. Should the store charge the
    /// payment after all (an interrupted purchase can be reported cancelled
    /// first), the charge is credited to this order when it arrives.
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
