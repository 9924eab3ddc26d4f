import Foundation

extension JournalOrderStore {
    /// Every open order, oldest first, and what the first load (or a reload
    /// after a failed write) could not read. Problems are reported once.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the journal cannot be read.
    public func loadOpenOrders() async throws -> OrderLoadReport {
        try await ready()
        let (open, problems) = state.withLock { s in
            defer { s.unreportedProblems = [] }
            return (s.index.openOrders, s.unreportedProblems)
        }
        return OrderLoadReport(orders: JournalIndex.inCreationOrder(open.values), problems: problems)
    }

    /// The open orders of one user, oldest first.
    public func openOrders(forUser userID: String) async throws -> [Order] {
        try await ready()
        return state.withLock { $0.index.openOrders(forUser: userID) }
    }

    /// Every order of one user, open, archived and compacted, oldest first.
    /// Compacted ones come without their receipt, metadata and hint.
    public func orders(forUser userID: String) async throws -> [Order] {
        try await ready()
        let orders = state.withLock { s in s.index.orderIDs(forUser: userID).compactMap { s.index.order(id: $0) } }
        return JournalIndex.inCreationOrder(orders)
    }

    /// The order with this id, open, archived or compacted.
    public func order(id: String) async throws -> Order? {
        try await ready()
        return state.withLock { $0.index.order(id: id) }
    }

    /// The order whose store transaction has this id, open, archived or compacted.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the journal cannot be read, or
    ///   when no order holds it but the import left ``FileOrderStore`` order files unread.
    public func order(transactionID: String) async throws -> Order? {
        try await ready()
        return try state.withLock { s in
            guard let id = s.index.orderID(forTransaction: transactionID) else { return try Self.noneHeld(s.index) }
            return s.index.order(id: id)
        }
    }

    /// Every order holding a transaction of the purchase `originalTransactionID`,
    /// open, archived or compacted, oldest first.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the journal cannot be read, or
    ///   when no order holds one but the import left ``FileOrderStore`` order files unread.
    public func orders(originalTransactionID: String) async throws -> [Order] {
        try await ready()
        return try state.withLock { s in
            let ids = s.index.orderIDs(forPurchase: originalTransactionID)
            guard !ids.isEmpty else { return try Self.noneHeld(s.index).map { [$0] } ?? [] }
            return JournalIndex.inCreationOrder(ids.compactMap { s.index.order(id: $0) })
        }
    }

    /// The order whose payment carried this token, open, archived or compacted:
    /// tokens resolve for good.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the journal cannot be read, or
    ///   when no order holds it but the import left ``FileOrderStore`` order files unread.
    public func order(token: String) async throws -> Order? {
        try await ready()
        return try state.withLock { s in
            guard let id = s.index.orderID(forToken: token) else { return try Self.noneHeld(s.index) }
            return s.index.order(id: id)
        }
    }

    /// The answer of a lookup that found no order: none, unless an order the
    /// import could not read may be the one. Answering none then would let the
    /// engine credit a paid transaction of that order to whoever is logged in,
    /// or to a new order that the import's order duplicates once it is read.
    private static func noneHeld(_ index: JournalIndex) throws(PurchaseKitError) -> Order? {
        guard !index.unreadOrderFiles.isEmpty else { return nil }
        throw PurchaseKitError(
            .persistenceReadFailed,
            "No order of the journal matches, but \(index.unreadOrderFiles.count) order files of the FileOrderStore before it could not be imported; one of them may.",
            advice: "The import tries again at the next launch; see the problems its load reported.")
    }

    /// Every archived order, whole or compacted, oldest first (for diagnostics and tests).
    public func archivedOrders() async throws -> [Order] {
        try await ready()
        let orders = state.withLock { s in s.index.stored.keys.compactMap { s.index.order(id: $0) } }
        return JournalIndex.inCreationOrder(orders)
    }

    /// Every order, open, archived and compacted, oldest first (for the fault
    /// simulation's checks).
    package func allOrders() async throws -> [Order] {
        try await ready()
        let orders = state.withLock { s in Array(s.index.openOrders.values) + s.index.stored.keys.compactMap { s.index.order(id: $0) } }
        return JournalIndex.inCreationOrder(orders)
    }

    /// Compacts every archived order whose last change is older than the
    /// retention (see ``Configuration/archiveRetention``), then writes a
    /// snapshot so that the dropped receipts leave the disk. Also runs at the
    /// first use after launch.
    ///
    /// - Returns: How many orders were compacted.
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed`` when the snapshot could not be
    ///   written; the orders stay compacted in memory and are compacted again at the next launch.
    @discardableResult
    public func compactArchive() async throws -> Int {
        while true {
            try await ready()
            // One snapshot at a time: wait for one in progress, then compact and write the next.
            let busy = state.withLock { $0.snapshotInProgress }
            if busy {
                await writer.waitUntilIdle()
                continue
            }
            let now = configuration.clock.now
            let retention = configuration.archiveRetention
            let (count, written): (Int, Result<Int, FileSystemError>?) = await suspend { continuation in
                let (count, snapshot) = state.withLock { s -> (Int?, SnapshotWrite?) in
                    guard case .loaded = s.phase, !s.snapshotInProgress else { return (nil, nil) }
                    let count = Self.compactExpired(&s.index, now: now, retention: retention)
                    guard count > 0 else { return (0, nil) }
                    return (count, beginSnapshot(&s) { result in continuation.resume(returning: (count, result)) })
                }
                if let snapshot { startSnapshot(snapshot) }
                if count == 0 { continuation.resume(returning: (0, nil)) }
                if count == nil { continuation.resume(returning: (-1, nil)) }
            }
            if count < 0 { continue }
            if case .failure(let error)? = written {
                throw PurchaseKitError.writeFailed(error, "The archive was compacted but its snapshot could not be written", orderID: nil,
                                                   advice: "The receipts stay on disk until a snapshot is written; try again later.")
            }
            if count > 0 { log(.info, "Compacted archived orders past their retention.", ["count": String(count)]) }
            return count
        }
    }

    /// Compacts, in memory, every archived order whose last change is older than `retention`.
    static func compactExpired(_ index: inout JournalIndex, now: Date, retention: TimeInterval) -> Int {
        let cutoff = now.addingTimeInterval(-retention)
        var count = 0
        for (id, bytes) in index.stored {
            guard let entry = index.entry(for: id), entry.place == .archived, entry.updatedAt < cutoff,
                  let order = bytes.withUnsafeBytes({ try? OrderBinaryCoding.decode($0) }) else { continue }
            var writer = ByteWriter()
            OrderBinaryCoding.encode(CompactOrderRecord.compact(order), into: &writer)
            // Not a save: an order saved since keeps a transaction id or token it shares with this one.
            index.restow(id, bytes: Data(writer.bytes), place: .compacted)
            count += 1
        }
        return count
    }
}
