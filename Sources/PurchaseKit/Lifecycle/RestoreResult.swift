/// What a restore did: what it restored and delivered, what is paid but
/// still owed, what it could not take on, and whether the user cancelled.
///
/// A failed restore (the store could not be reached) is not a result: it is
/// thrown as ``PurchaseKitError/Code/restoreFailed``. A restore the user
/// cancelled (they dismissed the store's sign-in) is a result with
/// ``userCancelled`` set and nothing else, as a cancelled purchase is.
public struct RestoreResult: Sendable, Equatable {
    /// The user restored for.
    public var userID: String
    /// The user dismissed the store's sign-in: nothing was asked of the store
    /// and nothing changed. Not a failure; do not show an error.
    public var userCancelled: Bool
    /// The orders restored and delivered (or delivered before): the user has them now.
    public var delivered: [Order]
    /// The orders the store restored whose delivery did not succeed yet: the
    /// verifier could not be reached (retried with backoff, and at every
    /// retry trigger) or the order needs attention. Paid, saved, not lost;
    /// not yet the user's. Tell the user they are on their way.
    public var owed: [Order]
    /// The restored transactions that could not be taken on.
    public var failures: [RestoreFailure]

    /// Creates a restore result.
    public init(userID: String, userCancelled: Bool = false, delivered: [Order] = [], owed: [Order] = [],
                failures: [RestoreFailure] = []) {
        self.userID = userID
        self.userCancelled = userCancelled
        self.delivered = delivered
        self.owed = owed
        self.failures = failures
    }

    /// The products restored and delivered, sorted, without repeats. Products
    /// still owed or failed are not in it.
    public var restoredProductIDs: [String] {
        Array(Set(delivered.map(\.productID))).sorted()
    }

    /// Every order the restore found for the user, delivered and owed.
    public var orders: [Order] { delivered + owed }

    /// Whether everything the store restored is now the user's: nothing owed,
    /// nothing failed, not cancelled.
    public var isComplete: Bool { !userCancelled && owed.isEmpty && failures.isEmpty }
}

/// One restored transaction that a restore could not take on.
public struct RestoreFailure: Sendable, Equatable {
    /// The store transaction.
    public var transactionID: String
    /// Its product.
    public var productID: String
    /// Why: ``PurchaseKitError/Code/persistenceWriteFailed`` when its order
    /// could not be saved (the store keeps the purchase: restore again, or
    /// the next launch picks it up), ``PurchaseKitError/Code/verificationRejected``
    /// when the app's server refused it (it is not this user's), or
    /// ``PurchaseKitError/Code/persistenceReadFailed``.
    public var error: PurchaseKitError
    /// The order, when one exists (a rejected one).
    public var orderID: String?

    /// Creates a failure.
    public init(transactionID: String, productID: String, error: PurchaseKitError, orderID: String? = nil) {
        self.transactionID = transactionID
        self.productID = productID
        self.error = error
        self.orderID = orderID
    }
}
