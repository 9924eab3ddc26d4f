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
}
