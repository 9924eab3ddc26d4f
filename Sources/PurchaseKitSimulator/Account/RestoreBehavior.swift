import PurchaseKit

/// What the simulated store does when the app asks it to restore purchases.
public enum RestoreBehavior: Sendable, Hashable {
    /// The account's restorable transactions come back.
    case succeeds
    /// The store cannot be reached: ``PurchaseKitError/Code/storeUnavailable``.
    case fails
    /// The user dismisses the store's sign-in: ``PurchaseKitError/Code/userCancelled``.
    case userCancels
}

extension SimulatedPaymentQueue {
    /// Sets what every coming restore does (not saved by `saveState`).
    public func setRestoreBehavior(_ behavior: RestoreBehavior) {
        restoreBehavior = behavior
    }

    /// Throws what ``restoreBehavior`` asks for, if anything.
    func checkRestoreBehavior() throws {
        switch restoreBehavior {
        case .succeeds:
            return
        case .fails:
            throw PurchaseKitError(.storeUnavailable, "The simulated store could not restore purchases.",
                                   advice: "Try again later; the failure was switched on for this test.")
        case .userCancels:
            throw PurchaseKitError(.userCancelled, "The user dismissed the store's sign-in.",
                                   advice: "Nothing to do; the user may restore again.")
        }
    }
}
