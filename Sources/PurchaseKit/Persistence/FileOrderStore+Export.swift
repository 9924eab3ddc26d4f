import Foundation

extension FileOrderStore {
    /// Everything a ``FileOrderStore`` holds, for an import into another store.
    struct Export: Sendable {
        struct Item: Sendable {
            var order: Order
            var place: JournalIndex.Place
            /// The file holding the order; nil for a compacted order (its record is in a ledger segment).
            var file: String?
        }

        var items: [Item] = []
        /// Every readable ledger segment, with the ids of the records it holds.
        var ledgerSegments: [(path: String, ids: [String])] = []
        /// What the load and the reads could not use (quarantined, or left in place).
        var problems: [PurchaseKitError] = []
        /// The folders that hold the files.
        var folders: [String] = []
        /// The order files and ledger segments that could not be read (an I/O
        /// error), left in place: the orders in them exist, but are not in `items`.
        var unread: Set<String> = []
    }

    /// Loads the folders if needed and returns every order, open, archived and
    /// compacted, with the file each one came from. An order file that
    /// cannot be read is a problem of the export, is not in it, and is named
    /// in its `unread` when it was left in place (not moved to quarantine).
    func export() throws(PurchaseKitError) -> Export {
        try loadIfNeeded()
        var export = Export()
        export.problems = unreportedProblems
        unreportedProblems = []
        for (id, order) in index.openOrders {
            let file = index.entry(for: id).map { path(of: .open) + "/" + $0.fileName }
            export.items.append(.init(order: order, place: .open, file: file))
        }
        for (id, entry) in index.archivedEntries {
            do throws(PurchaseKitError) {
                guard let order = try readArchived(id: id, entry: entry) else { continue }
                let stillFiled = index.entry(for: id)?.place == .archive
                export.items.append(.init(order: order, place: stillFiled ? .archived : .compacted,
                                          file: stillFiled ? path(of: .archive) + "/" + entry.fileName : nil))
            } catch {
                // A read that failed leaves the file, and its order, for a later load;
                // a damaged file went to quarantine.
                if error.code == .persistenceReadFailed { export.unread.insert("\(entry.place.rawValue)/\(entry.fileName)") }
                export.problems.append(error)
            }
        }
        for (id, record) in ledger.records where index.entry(for: id)?.place == .ledger {
            export.items.append(.init(order: record, place: .compacted, file: nil))
        }
        for (number, segment) in ledger.segments.sorted(by: { $0.key < $1.key }) where segment.isWritable {
            export.ledgerSegments.append((path(of: .ledger) + "/" + FileOrderLedger.segmentName(number), segment.ids))
        }
        export.folders = [path(of: .open), path(of: .archive), path(of: .ledger)]
        export.unread.formUnion(unreadOrderFiles)
        return export
    }
}
