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

    /// Whether a purchase of the subscription `productID` now would change
    /// the account's subscription of its group to it: at the renewal date
    /// (true: a downgrade, or a crossgrade to another duration), or at once
    /// (false: an upgrade, or a crossgrade of the same duration), and
    /// whether the tier held now was bought by another app user than
    /// `userID`. Nil when it would be no change (no other tier of the group is held).
    func changesTier(to productID: String, by userID: String) -> (atRenewalDate: Bool, ofAnotherUser: Bool)? {
        guard let info = catalog[productID]?.subscription,
              let current = activeSubscription(inGroup: info.groupID, other: productID),
              let currentInfo = catalog[current.productID]?.subscription else { return nil }
        return (!SubscriptionChange.takesEffectAtOnce(from: currentInfo, to: info), current.userID != userID)
    }

    /// The subscription of `groupID` the account holds now, if any.
    func heldSubscription(inGroup groupID: String) -> String? {
        activeSubscription(inGroup: groupID, other: "")?.productID  // no product id is empty: none left out
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
