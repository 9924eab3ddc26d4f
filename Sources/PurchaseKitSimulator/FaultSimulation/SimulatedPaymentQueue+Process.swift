import PurchaseKit

extension SimulatedPaymentQueue {
    /// Forgets the observer, as when the app's process dies: from now on
    /// updates wait for the next ``attach(_:)`` (unfinished transactions are
    /// replayed from the records, other updates are kept).
    public func detach() {
        observer = WeakObserver()
    }

    /// The app user whose payment made this transaction (the store's record,
    /// not anything the app said later): the user a correct app credits.
    public func buyer(ofTransactionID id: String) -> String? {
        recordIndex[id].map { records[$0].userID }
    }
}
