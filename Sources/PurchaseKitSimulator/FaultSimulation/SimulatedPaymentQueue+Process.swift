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

    /// The account as the fault simulation's checks read it after a step, in
    /// one call rather than one per transaction.
    func accountView() -> AccountView {
        AccountView(
            records: records.map { AccountView.Record(transaction: $0.transaction, buyer: $0.userID, isFinished: $0.isFinished) },
            unfinishedPayments: unpaid.filter { !$0.isFinished }.map(\.id),
            pendingCount: pending.count, heldCount: heldUpdates.count)
    }
}

/// The account's transactions with their buyers, and what still waits.
struct AccountView: Sendable {
    struct Record: Sendable {
        var transaction: StoreTransaction
        var buyer: String
        var isFinished: Bool
    }

    var records: [Record]
    var unfinishedPayments: [String]
    var pendingCount: Int
    var heldCount: Int
}
