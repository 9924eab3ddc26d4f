/// What the verifier is asked: to check a receipt and, if it is good, to
/// credit the order's user.
public struct VerificationRequest: Sendable, Hashable {
    /// The order to deliver; its `userID` is the only user to credit.
    public var order: Order
    /// The transaction to check; it carries the receipt.
    public var transaction: StoreTransaction

    /// Creates a request to verify and deliver `transaction` for `order`.
    public init(order: Order, transaction: StoreTransaction) {
        self.order = order
        self.transaction = transaction
    }

    /// The key the server must deduplicate deliveries on: the transaction id.
    /// A server that credits once per key credits once even when asked twice.
    public var idempotencyKey: String { transaction.id }
}

/// The verifier's answer. Anything thrown counts as ``retryLater(reason:)``.
public enum ReceiptVerdict: Sendable, Hashable {
    /// The receipt is good and the delivery is now recorded.
    case delivered
    /// The receipt is good and this transaction was delivered before (the
    /// idempotency key was seen). Treated like `delivered`.
    case alreadyDelivered
    /// The receipt is definitely invalid (forged, wrong app, refunded before
    /// delivery). Final: the transaction is finished without delivery.
    case invalid(reason: String)
    /// No answer now (timeout, 5xx, offline, rate limit). The delivery stays owed
    /// and is retried.
    case retryLater(reason: String)
}

/// Checks a receipt and records the delivery, usually by asking the app's server.
public protocol ReceiptVerifier: Sendable {
    /// Verifies and delivers. Must be idempotent on ``VerificationRequest/idempotencyKey``.
    func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict
}
