/// The engine's ear on the store: what the engine hands to
/// ``PaymentQueue/attach(_:)``. It is a separate object so that the engine's
/// own public surface carries no observer methods an app could call with
/// made-up updates. The engine owns it; stores hold their observer weakly,
/// and it holds the engine weakly, so neither keeps the other alive.
final class EngineQueueObserver: PaymentQueueObserver {
    private struct Target: Sendable {
        weak var engine: PurchaseEngine?
    }

    private let target = Locked(Target())

    /// Points the observer at its engine (done once, when the engine attaches).
    func connect(_ engine: PurchaseEngine) {
        target.withLock { $0.engine = engine }
    }

    func paymentQueue(didUpdate updates: [TransactionUpdate]) async {
        await target.withLock { $0.engine }?.paymentQueue(didUpdate: updates)
    }

    func paymentQueue(didReceive intent: PromotedPurchaseIntent) async {
        await target.withLock { $0.engine }?.paymentQueue(didReceive: intent)
    }
}
