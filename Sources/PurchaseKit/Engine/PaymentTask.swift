import Foundation

/// One purchase call waiting for its order to come to rest. The result may
/// arrive before the caller starts waiting (the store can answer inside
/// `add`), so it is kept until taken.
struct PaymentTask {
    let key: TaskQueue.Key
    var result: Result<PurchaseResult, PurchaseKitError>?
    var continuation: CheckedContinuation<PurchaseResult, any Error>?
    /// The store timeout's timer in the engine's ``DeadlineSchedule``.
    var timeoutID: UInt64?

    init(key: TaskQueue.Key) { self.key = key }

    /// What a caller should hear about `order` after `event`, or nil while it is still moving.
    static func outcome(for order: Order, after event: OrderEvent) -> Result<PurchaseResult, PurchaseKitError>? {
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
}
