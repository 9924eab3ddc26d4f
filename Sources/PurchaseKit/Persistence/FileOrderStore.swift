import Foundation

/// The ``OrderStore`` an app uses: one JSON file per order in a directory of
/// its own, written so that a crash or power loss at any moment leaves every
/// order either at its old version or at its new one, never lost or half
/// written.
///
/// Layout, all owner-only (directories `0700`, files `0600`):
///
/// ```
/// <directory>/orders/      open orders, one file each
/// <directory>/archive/     finished orders, whole, for `archiveRetention`
/// <directory>/ledger/      compacted orders, kept for good (segment-000001.tsv, ...)
/// <directory>/quarantine/  entries that could not be used, kept for diagnosis
/// ```
///
/// File names are derived from the order id so that any id, however hostile,
/// is safe (see the file-name coding in the source). A save writes a temporary
/// file next to the target, flushes it, renames it over the old file and
/// flushes the directory.
///
/// **Retention.** An archived order is kept whole for
/// ``Configuration/archiveRetention`` after its last change (its `updatedAt`,
/// compared with this store's clock). After that it is *compacted*: its
/// receipt (`transaction.receipt`), `metadata` and `hint` are dropped, and
/// everything else — ids, user, product, quantity, status, source, token, every
/// date, and the transaction's ids, dates, revocation and environment — stays
/// in the ledger **for good**, because entitlements, consumable balances,
/// subscription renewals, duplicate detection and late payments depend on it.
/// Compacted orders answer ``orders(forUser:)``, ``order(id:)``,
/// ``order(transactionID:)`` and ``order(token:)`` like any other, without
/// their receipt. Only ``remove(orderID:)`` deletes an order for good.
/// Compaction runs at the first use after launch and on ``compactArchive()``.
///
/// **What is read.** The store reads only regular files of at most
/// ``Configuration/maximumFileSize`` bytes, never following a symbolic link
/// and never blocking on a FIFO. Anything else found in its folders (a FIFO,
/// socket, device, link, folder or oversized file), and any damaged document,
/// is moved to the quarantine folder and reported by the next
/// ``loadOpenOrders()``; the rest loads.
///
/// The store reads its directory once, on first use: unusable entries move to
/// the quarantine folder, files left by an interrupted write are deleted, and
/// expired archived orders are compacted. From then on it keeps an index in
/// memory, so a save or a lookup costs the same however many orders are
/// stored. Use one store per directory in a process: two would not see each
/// other's changes.
///
/// The file calls are short and synchronous, made on the actor: a save waits
/// for its flush, which is the point, and saves from many tasks run one at a time.
///
/// Order ids are compared as Swift strings, as in ``InMemoryOrderStore``: two
/// ids that are canonically equivalent Unicode name the same order.
public actor FileOrderStore: OrderStore {
    /// How a ``FileOrderStore`` behaves.
    public struct Configuration: Sendable {
        /// How long an archived order is kept whole after its last change, in
        /// seconds; thirty days by default. After that it is compacted: its
        /// receipt, metadata and hint are dropped and the rest is kept for good.
        /// Keep receipts as long as your server may ask for them again.
        public var archiveRetention: TimeInterval
        /// Where "now" comes from, for compacting the archive. It may be another
        /// clock than the engine's (the system clock by default).
        public var clock: any PurchaseClock
        /// Receives a line for every file quarantined, cleaned up or compacted.
        public var logHandler: any PurchaseLogHandler
        /// The largest order document the store writes or reads, in bytes; 1 MiB by default.
        ///
        /// Reading is bounded so that nothing placed in the store's folders can
        /// exhaust memory: a larger file is set aside unread. A save of a larger
        /// order is refused, so that nothing is written that could not be read
        /// back. StoreKit 2 signed transactions take a few kilobytes; a StoreKit 1
        /// app receipt grows with the account's purchase history, so raise this
        /// if you keep those on orders. Lowering it later sets aside the orders
        /// that no longer fit.
        public var maximumFileSize: Int
        /// The file-system calls; tests replace them to inject faults.
        package var fileSystem: any FileSystem = POSIXFileSystem()

        /// Creates a configuration.
        public init(archiveRetention: TimeInterval = 30 * 24 * 60 * 60,
                    clock: any PurchaseClock = SystemClock(),
                    logHandler: any PurchaseLogHandler = SilentLogHandler(),
                    maximumFileSize: Int = 1024 * 1024) {
            self.archiveRetention = archiveRetention
            self.clock = clock
            self.logHandler = logHandler
            self.maximumFileSize = maximumFileSize
        }
    }

    /// The directory holding the store's folders.
    public nonisolated let directory: URL
    let configuration: Configuration
    let paths: [FileOrderIndex.Place: String]
    let quarantinePath: String
    var index = FileOrderIndex()
    var ledger = FileOrderLedger()
    var isLoaded = false
    /// Problems found by the load, until ``loadOpenOrders()`` reports them.
    var unreportedProblems: [PurchaseKitError] = []
    /// The order files and ledger segments the load could not read (an I/O
    /// error), left in place: an import must not take their orders for
    /// missing (see ``export()``).
    var unreadOrderFiles: Set<String> = []

    static let directoryMode: UInt16 = 0o700
    static let fileMode: UInt16 = 0o600

    /// Opens (creating if needed) the store in `directory`.
    ///
    /// A directory created here is owner-only (`0700`). An existing `directory`
    /// keeps its permissions, but the folders holding orders are always
    /// owner-only. Nothing is read until the first call.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed`` when the folders cannot be created.
    public init(directory: URL, configuration: Configuration = .init()) throws(PurchaseKitError) {
        let root = directory.path
        self.directory = directory
        self.configuration = configuration
        self.paths = [.open: root + "/orders", .archive: root + "/archive", .ledger: root + "/ledger"]
        self.quarantinePath = root + "/quarantine"
        try StoreFolders.prepare(root: root, folders: [root + "/orders", root + "/archive", root + "/ledger", quarantinePath],
                                 fileSystem: configuration.fileSystem)
    }

    var fileSystem: any FileSystem { configuration.fileSystem }

    func path(of place: FileOrderIndex.Place) -> String { paths[place] ?? quarantinePath }

    // MARK: OrderStore

    /// Writes the order durably: when this returns, it survives a crash. An
    /// archived order with the same id moves back to the open orders.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed`` naming the call and `errno`
    ///   that failed. Unless the message says the directory flush failed, the previous
    ///   version of the order is intact.
    public func save(_ order: Order) throws(PurchaseKitError) {
        try loadIfNeeded()
        let data = try OrderCoding.encode(order)
        guard data.count <= configuration.maximumFileSize else {
            throw PurchaseKitError(
                .persistenceWriteFailed,
                "Order '\(order.id)' takes \(data.count) bytes, more than the store's limit of \(configuration.maximumFileSize); it was not saved.",
                advice: "Keep less in the order's metadata, or raise FileOrderStore.Configuration.maximumFileSize.",
                orderID: order.id)
        }
        let previous = index.entry(for: order.id)
        let fileName: String
        if let previous, FileNameCoding.name(previous.fileName, fits: order.id) {
            fileName = previous.fileName
        } else {
            fileName = index.freeFileName(for: order.id)
        }
        do throws(FileSystemError) {
            try fileSystem.writeDurably(data, directory: path(of: .open), fileName: fileName, mode: Self.fileMode)
        } catch where error.operation == .synchronizeDirectory {
            // The rename is done, so the new version is what the disk shows; keep the index in step.
            index.insert(order, fileName: fileName, place: .open)
            throw PurchaseKitError.writeFailed(
                error, "Order '\(order.id)' was written but may not survive a power loss", orderID: order.id,
                advice: "The new version is in place but its durability is not confirmed. Save the order again.")
        } catch {
            throw PurchaseKitError.writeFailed(error, "Order '\(order.id)' could not be saved", orderID: order.id)
        }
        index.insert(order, fileName: fileName, place: .open)
        if let previous, previous.place != .ledger, previous.place != .open || previous.fileName != fileName {
            removeSupersededFile(previous, orderID: order.id)
        }
    }

    /// Deletes the old file of an order that now lives elsewhere. The order is
    /// already durable in its new place, so a failure here is logged rather
    /// than thrown: the stale copy loses to the open one at the next load.
    private func removeSupersededFile(_ entry: FileOrderIndex.Entry, orderID: String) {
        let folder = path(of: entry.place)
        do throws(FileSystemError) {
            try fileSystem.removeFile(atPath: folder + "/" + entry.fileName)
            try fileSystem.synchronizeDirectory(atPath: folder)
        } catch {
            log(.error, "Could not delete the superseded copy of a saved order; the next load resolves it.",
                ["file": "\(entry.place.rawValue)/\(entry.fileName)", "orderID": orderID, "error": error.description])
        }
    }

    /// Moves an open order to the archive with one atomic rename.
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound`` when there is no such open order;
    ///   ``PurchaseKitError/Code/persistenceWriteFailed`` when the move fails.
    public func archive(orderID: String) throws(PurchaseKitError) {
        try loadIfNeeded()
        guard let entry = index.entry(for: orderID), entry.place == .open else {
            throw PurchaseKitError(.orderNotFound, "There is no open order '\(orderID)' to archive.",
                                   advice: "Reload the open orders; it may have been archived already.", orderID: orderID)
        }
        do throws(FileSystemError) {
            try fileSystem.rename(path(of: .open) + "/" + entry.fileName, to: path(of: .archive) + "/" + entry.fileName)
        } catch {
            throw PurchaseKitError.writeFailed(error, "Order '\(orderID)' could not be archived", orderID: orderID)
        }
        index.markArchived(id: orderID)
        try synchronize([.archive, .open], after: "Order '\(orderID)' was archived", orderID: orderID)
    }

    /// Deletes an order for good, wherever it is: open, archived or compacted.
    /// Deleting a missing order is not an error.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed`` when the file or the
    ///   ledger record cannot be deleted; the order is then still there.
    public func remove(orderID: String) throws(PurchaseKitError) {
        try loadIfNeeded()
        guard let entry = index.entry(for: orderID) else { return }
        // The ledger's record first: a file left by a failure below is still a
        // whole order, while a record left behind would bring a deleted order back.
        if ledger.segmentOf[orderID] != nil {
            var next = ledger
            let changed = next.remove(id: orderID).map { Set([$0]) } ?? []
            if let problem = writeLedger(next, changed: changed).problem { throw problem }
        }
        guard entry.place != .ledger else {
            index.remove(id: orderID)
            return
        }
        do throws(FileSystemError) {
            try fileSystem.removeFile(atPath: path(of: entry.place) + "/" + entry.fileName)
        } catch {
            throw PurchaseKitError.writeFailed(error, "Order '\(orderID)' could not be deleted", orderID: orderID)
        }
        index.remove(id: orderID)
        try synchronize([entry.place], after: "Order '\(orderID)' was deleted", orderID: orderID)
    }

    /// Flushes folders after a rename or deletion that already happened.
    private func synchronize(_ places: [FileOrderIndex.Place], after what: String, orderID: String) throws(PurchaseKitError) {
        do throws(FileSystemError) {
            for place in places { try fileSystem.synchronizeDirectory(atPath: path(of: place)) }
        } catch {
            throw PurchaseKitError.writeFailed(
                error, "\(what) but the change may not survive a power loss", orderID: orderID,
                advice: "The change is in place but its durability is not confirmed; it is safe to repeat it.")
        }
    }
}
