import Foundation
import PurchaseKit

extension SimulatedPaymentQueue {
    /// Sets what every purchase does unless a product or a script says otherwise.
    public func setDefaultBehavior(_ behavior: PurchaseBehavior) {
        defaultBehavior = behavior
    }

    /// Sets what purchases of one product do; nil goes back to the default.
    public func setBehavior(_ behavior: PurchaseBehavior?, for productID: String) {
        productBehaviors[productID] = behavior
    }

    /// Scripts the next purchase (a FIFO queue: each call adds one purchase).
    /// Scripts win over product and default behaviours.
    public func scriptNextPurchase(_ behavior: PurchaseBehavior, faults: DeliveryFaults? = nil) {
        scripts.append(PurchaseScript(behavior, faults: faults))
    }

    /// Scripts the next purchases, in order.
    public func scriptNextPurchases(_ scripts: [PurchaseScript]) {
        self.scripts.append(contentsOf: scripts)
    }

    /// Sets the delivery faults of every purchase, renewal and refund without their own.
    public func setDefaultFaults(_ faults: DeliveryFaults) {
        defaultFaults = faults
    }

    /// Sets the delivery faults of one product; nil goes back to the default.
    public func setFaults(_ faults: DeliveryFaults?, for productID: String) {
        productFaults[productID] = faults
    }

    /// Switches the lost order token on or off for every purchase.
    public func setLosesOrderToken(_ loses: Bool) {
        defaultFaults.losesOrderToken = loses
    }

    /// Delivers every batch `count` extra times (0 switches duplicates off).
    public func setDuplicateDeliveries(_ count: Int) {
        defaultFaults.extraDeliveries = max(0, count)
    }

    /// Allows or forbids payments on this device (parental controls, MDM).
    public func setCanMakePayments(_ allowed: Bool) {
        paymentsAllowed = allowed
    }

    /// Makes product requests fail (or succeed again).
    public func setProductRequestsFail(_ fail: Bool) {
        productRequestsFail = fail
    }

    /// The store stops selling a product, as "Remove from sale" in App Store
    /// Connect: product requests no longer return it and new payments fail
    /// with `.productNotAvailable`, while the account keeps its transactions
    /// and running subscriptions keep renewing. Not saved by `saveState`.
    public func removeFromSale(productID: String) {
        removedFromSale.insert(productID)
    }

    /// The store sells a product removed from sale again.
    public func putBackOnSale(productID: String) {
        removedFromSale.remove(productID)
    }

    /// Sets the latency of every call, in seconds on the injected clock (0: none).
    /// With a `ManualClock`, use `waitForSleepers(count:)` and `advance(by:)`.
    public func setLatency(_ seconds: TimeInterval) {
        latency = max(0, seconds)
    }

    /// The behaviour and faults for the next payment of `productID`, consuming one script.
    func nextOutcome(for productID: String) -> (PurchaseBehavior, DeliveryFaults) {
        let faults = productFaults[productID] ?? defaultFaults
        if !scripts.isEmpty {
            let script = scripts.removeFirst()
            return (script.behavior, script.faults ?? faults)
        }
        return (productBehaviors[productID] ?? defaultBehavior, faults)
    }

    /// The faults for store-initiated updates about `productID` (renewals, refunds).
    func faults(for productID: String) -> DeliveryFaults {
        productFaults[productID] ?? defaultFaults
    }
}
