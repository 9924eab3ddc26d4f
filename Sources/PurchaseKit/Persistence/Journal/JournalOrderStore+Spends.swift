import Foundation

extension JournalOrderStore {
    /// Records a spend as a journal record, flushed before this returns; kept
    /// by every snapshot. A spend id the user already has writes nothing and
    /// returns the stored spend, once that spend is flushed (a retry can come
    /// while the first call waits for its flush).
    ///
    /// - Throws: ``PurchaseKitError/Code/invalidQuantity`` for a spend of less than one unit or one
    ///   that leaves a negative balance (nothing is written: a launch could not read it back);
    ///   ``PurchaseKitError/Code/persistenceWriteFailed`` when the journal cannot be written;
    ///   ``PurchaseKitError/Code/persistenceCorrupt`` when the user's spends in a
    ///   ``FileOrderStore`` file could not be imported (nothing is written).
    public func recordSpend(_ spend: ConsumableSpend) async throws -> ConsumableSpend {
        guard spend.amount > 0, spend.balanceAfter >= 0 else {
            throw PurchaseKitError(
                .invalidQuantity,
                "A spend must be of at least 1 unit and leave a balance of 0 or more; got \(spend.amount) units and a balance of \(spend.balanceAfter). Nothing was written.",
                advice: "Record spends through PurchaseEngine.spend(_:of:user:spendID:), which checks the balance.")
        }
        var writer = ByteWriter()
        JournalRecord.spend(spend, into: &writer)
        // Checked under the lock, on the index the spend goes to (a reload in between imports again).
        try await commit(writer.bytes, durable: true, about: .none) { index throws(PurchaseKitError) in
            guard !index.spendsAreUnknown(of: spend.userID) else { throw Self.unknownSpends(of: spend.userID) }
            return index.recordSpend(spend)
        }
        return state.withLock { $0.index.spend(id: spend.id, user: spend.userID) } ?? spend
    }

    /// Every spend of one user, oldest first.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the journal cannot be read;
    ///   ``PurchaseKitError/Code/persistenceCorrupt`` when the user's spends in a
    ///   ``FileOrderStore`` file could not be imported: a balance without them would be too high.
    public func spends(forUser userID: String) async throws -> [ConsumableSpend] {
        try await ready()
        let spends = state.withLock { s -> [ConsumableSpend]? in
            guard !s.index.spendsAreUnknown(of: userID) else { return nil }
            return ConsumableSpend.chronological(s.index.spends[userID]?.values ?? [:].values)
        }
        guard let spends else { throw Self.unknownSpends(of: userID) }
        return spends
    }

    /// The error for a user whose spends file the import left unread.
    private static func unknownSpends(of userID: String) -> PurchaseKitError {
        PurchaseKitError(
            .persistenceCorrupt, "The spends of this user kept by the FileOrderStore before the journal could not be imported.",
            advice: "The balance is not answered while its spends are unknown; the import tries again at the next launch. The file is spends/\(FileNameCoding.fileName(for: userID)) in the store's directory.")
    }

    /// Keeps a renewal state as a journal record, without waiting for its flush
    /// (a cache: the next durable change makes it durable); kept by every snapshot.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed`` when the journal cannot be written.
    public func saveRenewalState(_ record: RenewalStateRecord) async throws {
        var writer = ByteWriter()
        JournalRecord.renewal(record, into: &writer)
        try await commit(writer.bytes, durable: false, about: .none) { index in index.saveRenewalState(record) }
    }

    /// The renewal states kept for one user.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the journal cannot be read.
    public func renewalStates(forUser userID: String) async throws -> [RenewalStateRecord] {
        try await ready()
        return state.withLock { RenewalStateRecord.sorted($0.index.renewals[userID]?.values ?? [:].values) }
    }
}
