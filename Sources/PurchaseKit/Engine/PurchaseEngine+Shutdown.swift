import Foundation

extension PurchaseEngine {
    /// Stops the engine for good: every timer (store and verifier timeouts,
    /// delivery retries, payment expiries) is dropped, and the calls those
    /// timeouts guarded (and a ``start()`` under way) are answered
    /// ``PurchaseKitError/Code/engineShutDown``; background work is cancelled, every
    /// ``events()`` stream finishes, and every purchase call still waiting is
    /// answered with ``PurchaseKitError/Code/engineShutDown``.
    ///
    /// Nothing paid is lost: an order stays as it was last saved, and a store
    /// transaction not yet finished stays with the store, which replays it to
    /// the next engine's ``start()``. Work still running (a verifier call
    /// that answers late) saves nothing: the next engine on the same order
    /// store owns the orders. After this, store updates are left for
    /// that next engine, and ``start()``, ``purchase(productID:user:quantity:metadata:promotionalOffer:)``,
    /// ``restorePurchases(user:)``, ``assign(orderID:toUser:)``, ``retry(orderID:)``,
    /// ``finish(orderID:)`` and ``spend(_:of:user:spendID:)`` throw
    /// ``PurchaseKitError/Code/engineShutDown``.
    /// Calling it again does nothing.
    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        fireDeadlinesAtShutdown()
        timers.removeAll()
        dropQueuedLaneJobs()
        for orderID in calls.orderIDs.sorted() {
            resolveWaiter(orderID: orderID, with: .failure(Self.shutDownError(orderID: orderID)))
        }
        wakeQueuedCalls()
        for task in work.values { task.cancel() }
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
        finishCustomerWatchers()
        log(.info, "Engine shut down", ["openOrders": "\(orders.count)"])
    }

    /// Throws ``PurchaseKitError/Code/engineShutDown`` once ``shutdown()`` has run.
    func ensureRunning(orderID: String? = nil) throws(PurchaseKitError) {
        if isShutDown { throw Self.shutDownError(orderID: orderID) }
    }

    static func shutDownError(orderID: String?) -> PurchaseKitError {
        PurchaseKitError(.engineShutDown, "The purchase engine was shut down.",
                         advice: "Make a new engine and call start(); a payment already taken is delivered then.",
                         orderID: orderID)
    }
}
