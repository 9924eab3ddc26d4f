import Foundation

extension FileOrderStore {
    /// Compacts every archived order whose last change is older than the
    /// retention: its record goes to the ledger, for good, and its file (with
    /// the receipt, metadata and hint) is deleted. See the retention rules on
    /// ``FileOrderStore``. Also runs at the first use after launch.
    ///
    /// - Returns: How many orders were compacted.
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed`` when the ledger or a
    ///   file cannot be written or deleted; the orders concerned stay archived,
    ///   whole, and are compacted at the next attempt; the others are compacted.
    @discardableResult
    public func compactArchive() throws(PurchaseKitError) -> Int {
        try loadIfNeeded()
        let result = compactExpired()
        if let first = result.problems.first { throw first }
        return result.compacted
    }

    /// Moves expired archived orders to the ledger: the records are made
    /// durable first, and only then are the files deleted, so a crash between
    /// the two leaves both (the file wins at the next load, and the next
    /// compaction replaces the record in place).
    func compactExpired() -> (compacted: Int, problems: [PurchaseKitError]) {
        let cutoff = configuration.clock.now.addingTimeInterval(-configuration.archiveRetention)
        let expired = index.archivedEntries.filter { $0.entry.updatedAt < cutoff }.sorted { $0.id < $1.id }
        guard !expired.isEmpty else { return (0, []) }
        var problems: [PurchaseKitError] = []
        var next = ledger
        var changed: Set<Int> = []
        var compacting: [(id: String, fileName: String)] = []
        for (id, entry) in expired {
            do throws(PurchaseKitError) {
                // A damaged file is quarantined by the read and reported; it cannot be compacted.
                guard let order = try readArchived(id: id, entry: entry), index.entry(for: id)?.place == .archive else { continue }
                changed.insert(next.put(order))
                compacting.append((id, entry.fileName))
            } catch {
                problems.append(error)
            }
        }
        let written = writeLedger(next, changed: changed)
        if let problem = written.problem { problems.append(problem) }
        let folder = path(of: .archive)
        var compacted = 0
        for (id, fileName) in compacting {
            guard let number = ledger.segmentOf[id], !written.failed.contains(number), ledger.records[id] != nil else { continue }
            do throws(FileSystemError) {
                try fileSystem.removeFile(atPath: folder + "/" + fileName)
            } catch {
                problems.append(.writeFailed(error, "The archived file of order '\(id)' could not be deleted after its compaction",
                                             orderID: id, advice: "Nothing was lost: the order stays archived whole and is compacted again later."))
                continue
            }
            index.markCompacted(id: id)
            compacted += 1
        }
        guard compacted > 0 else { return (0, problems) }
        do throws(FileSystemError) {
            try fileSystem.synchronizeDirectory(atPath: folder)
        } catch {
            problems.append(.writeFailed(error, "Compacting the archive may not survive a power loss", orderID: nil,
                                         advice: "Nothing was lost: an archived file that comes back is compacted again."))
        }
        log(.info, "Compacted archived orders past their retention into the ledger.", ["count": String(compacted)])
        return (compacted, problems)
    }
}
