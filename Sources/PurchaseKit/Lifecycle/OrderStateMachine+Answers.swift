import Foundation

// What a purchase call waiting on an order is answered: decided here, from
// the order and the event that moved it; the engine only delivers the answer.
extension OrderStateMachine {
    /// What a waiting purchase call hears about `order` after `event`, or
    /// nil while the order is still moving (no answer yet).
    public static func answer(for order: Order, after event: OrderEvent) -> Result<PurchaseResult, PurchaseKitError>? {
        switch order.status {
        case .completed:
            return .success(.success(order))
        case .delivered:
            // Credited. With automatic finishing this is reached only when the
            // finish failed; it is retried later and changes nothing for the user.
            return .success(.success(order))
        case .cancelled:
            return .success(.userCancelled(order))
        case .deferred:
            if case .store(.interrupted, _) = event { return .success(.pending(order, .actionRequired)) }
            if case .store(.scheduled, _) = event { return .success(.pending(order, .subscriptionChangeScheduled)) }
            return .success(.pending(order, .awaitingApproval))
        case .failed where order.isExpiredPayment:
            // The store never answered: it refused nothing, and the payment
            // may still complete and be delivered. "Refused, try again" would
            // have the user pay twice.
            return .success(.pending(order, .storeTimeout))
        case .failed:
            return .failure(.paymentFailed(order.storeFailureReason ?? .unknown, orderID: order.id))
        case .rejected:
            return .failure(PurchaseKitError(
                .verificationRejected, "The verifier rejected the receipt of order '\(order.id)'; nothing was delivered.",
                advice: "Tell the user the purchase could not be verified; the store refunds rejected purchases on request.",
                orderID: order.id))
        case .revoked:
            return .failure(PurchaseKitError(
                .paymentFailed, "The store revoked the payment of order '\(order.id)' before it was delivered.",
                advice: "Nothing is owed; the user was refunded.", orderID: order.id))
        case .needsAttention:
            return .success(.pending(order, .deliveryRetrying))
        case .purchased:
            return order.nextAttemptAt != nil ? .success(.pending(order, .deliveryRetrying)) : nil
        case .created, .purchasing:
            return nil
        }
    }

    /// What a waiting purchase call hears when a save failed, so the order did
    /// not move from `saved` to `attempted`. It is answered now rather than
    /// left to its timeout: a paid order is safe with the store, which replays
    /// its unfinished transaction at the next launch or retry trigger. An
    /// order whose delivery was saved was credited: only a later record
    /// (`completed`) failed, and launch redoes it.
    public static func answerAfterFailedSave(attempted: Order, saved: Order) -> Result<PurchaseResult, PurchaseKitError> {
        if saved.status == .delivered || saved.status == .completed {
            return .success(.success(saved))
        } else if attempted.transaction != nil {
            return .success(.pending(attempted, .deliveryRetrying))
        }
        return .failure(PurchaseKitError(
            .persistenceWriteFailed, "Order '\(attempted.id)' could not be saved.",
            advice: "Free some storage and try again; if the store charged the user, the payment is delivered at the next launch.",
            orderID: attempted.id))
    }

    /// When to try `saved`'s delivery again after a save failed, so it did not
    /// move: the record that could not be saved may have been the very retry
    /// the waiting call is told of (``answerAfterFailedSave(attempted:saved:)``
    /// answers "delivery retrying"), or a delivery the server made. An order
    /// that owes a delivery is tried again after `retryDelay`; nil for any other.
    public static func retryAfterFailedSave(of saved: Order, now: Date, retryDelay: TimeInterval) -> Date? {
        guard saved.status.owesDelivery, saved.transaction != nil else { return nil }
        return now.addingTimeInterval(retryDelay)
    }
}
