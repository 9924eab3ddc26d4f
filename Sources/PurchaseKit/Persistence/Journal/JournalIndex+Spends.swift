import Foundation

extension JournalIndex {
    /// Records a spend. Returns false, and changes nothing, when the user
    /// already has a spend with this id: the first one stands.
    @discardableResult
    mutating func recordSpend(_ spend: ConsumableSpend) -> Bool {
        guard spends[spend.userID]?[spend.id] == nil else { return false }
        spends[spend.userID, default: [:]][spend.id] = spend
        return true
    }

    /// Whether the import left the ``FileOrderStore`` spends file that holds
    /// `userID`'s spends unread (see ``unreadSpendFiles``).
    func spendsAreUnknown(of userID: String) -> Bool {
        guard !unreadSpendFiles.isEmpty else { return false }
        return unreadSpendFiles.contains(FileOrderStore.everySpendsFile)
            || unreadSpendFiles.contains(FileNameCoding.fileName(for: userID))
    }

    func spend(id: String, user userID: String) -> ConsumableSpend? {
        spends[userID]?[id]
    }

    /// Every spend, in a stable order (user, then date, then id), for snapshots.
    var allSpends: [ConsumableSpend] {
        spends.keys.sorted().flatMap { ConsumableSpend.chronological(spends[$0]?.values ?? [:].values) }
    }
}

extension JournalIndex {
    /// Keeps a renewal state. Returns false, and changes nothing, when a newer
    /// one of the same subscription is kept.
    @discardableResult
    mutating func saveRenewalState(_ record: RenewalStateRecord) -> Bool {
        guard record.replaces(renewals[record.userID]?[record.originalTransactionID]) else { return false }
        renewals[record.userID, default: [:]][record.originalTransactionID] = record
        return true
    }

    /// Every renewal state, in a stable order, for snapshots.
    var allRenewalStates: [RenewalStateRecord] {
        renewals.keys.sorted().flatMap { RenewalStateRecord.sorted(renewals[$0]?.values ?? [:].values) }
    }
}
