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
/// <directory>/archive/     finished orders, deleted after `archiveRetention`
/// <directory>/quarantine/  files that could not be read, kept for diagnosis
/// ```
///
/// File names are derived from the order id so that any id, however hostile,
/// is safe (see the file-name coding in the source). A save writes a temporary
/// file next to the target, flushes it, renames it over the old file and
/// flushes the directory.
///
/// The store reads its directory once, on first use: damaged files move to
/// the quarantine folder and are reported by the next ``loadOpenOrders()``,
/// files left by an interrupted write are deleted, and expired archived
/// orders are pruned. From then on it keeps an index in memory, so a save or a
/// lookup costs the same however many orders are stored. Use one store per
/// directory in a process: two would not see each other's changes.
///
/// The file calls are short and synchronous, made on the actor: a save waits
/// for its flush, which is the point, and saves from many tasks run one at a time.
///
/// Order ids are compared as Swift strings, as in ``InMemoryOrderStore``: two
/// ids that are canonically equivalent Unicode name the same order.
public actor FileOrderStore: OrderStore {
    /// How a ``FileOrderStore`` behaves.
    public struct Configuration: Sendable {
        /// How long an archived order is kept after its last change, in seconds. Thirty days by default.
        public var archiveRetention: TimeInterval
        /// Where "now" comes from, for pruning the archive.
        public var clock: any PurchaseClock
        /// Receives a line for every file quarantined, cleaned up or pruned.
        public var logHandler: any LogHandler
        /// The file-system calls; tests replace them to inject faults.
        package var fileSystem: any FileSystem = POSIXFileSystem()

        /// Creates a configuration.
        public init(archiveRetention: TimeInterval = 30 * 24 * 60 * 60,
                    clock: any PurchaseClock = SystemClock(),
                    logHandler: any LogHandler = SilentLogHandler()) {
            self.archiveRetention = archiveRetention
            self.clock = clock
            self.logHandler = logHandler
        }
    }

    /// The directory holding the store's folders.
    public nonisolated let directory: URL
    let configuration: Configuration
    let paths: [FileOrderIndex.Place: String]
    let quarantinePath: String
    var index = FileOrderIndex()
    var isLoaded = false
    /// Problems found by the load, until ``loadOpenOrders()`` reports them.
    var unreportedProblems: [PurchaseKitError] = []

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
        self.paths = [.open: root + "/orders", .archive: root + "/archive"]
        self.quarantinePath = root + "/quarantine"
        try Self.prepare(root: root, folders: [root + "/orders", root + "/archive", quarantinePath],
                         fileSystem: configuration.fileSystem)
    }

    private static func prepare(root: String, folders: [String], fileSystem: any FileSystem) throws(PurchaseKitError) {
        do throws(FileSystemError) {
            let createdRoot = try fileSystem.makeDirectory(atPath: root, mode: directoryMode)
            if createdRoot {
                // mkdir's mode is filtered by the umask; set it exactly.
                try fileSystem.setPermissions(atPath: root, mode: directoryMode)
            }
            for folder in folders {
                _ = try fileSystem.makeDirectory(atPath: folder, mode: directoryMode)
                try fileSystem.setPermissions(atPath: folder, mode: directoryMode)
            }
            try fileSystem.synchronizeDirectory(atPath: root)
            if createdRoot {
                var folder = (root as NSString).deletingLastPathComponent
                try fileSystem.synchronizeDirectory(atPath: folder)
                // mkdir may have created parents too, each named in its own parent: flush up the
                // tree. Best effort: a folder that cannot be opened is not one the store created.
                while folder != "/", !folder.isEmpty {
                    folder = (folder as NSString).deletingLastPathComponent
                    guard (try? fileSystem.synchronizeDirectory(atPath: folder)) != nil else { break }
                }
            }
        } catch {
            throw PurchaseKitError.writeFailed(
                error, "The order store's folders could not be prepared", orderID: nil,
                advice: "Check that the directory is writable by this app and that the disk has space.")
        }
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
        if let previous, previous.place != .open || previous.fileName != fileName {
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

    /// Every open order, oldest first, and the files the first load could not read.
    /// Problems are reported once: the damaged files are in the quarantine folder.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when a folder cannot be listed.
    public func loadOpenOrders() throws(PurchaseKitError) -> OrderLoadReport {
        try loadIfNeeded()
        let problems = unreportedProblems
        unreportedProblems = []
        return OrderLoadReport(orders: index.openOrders.values.sorted(by: FileOrderIndex.creationOrder),
                               problems: problems)
    }

    /// The open orders of one user, oldest first.
    public func openOrders(forUser userID: String) throws(PurchaseKitError) -> [Order] {
        try loadIfNeeded()
        return index.openOrders(forUser: userID)
    }

    /// Every order of one user, open and archived, oldest first. Archived ones
    /// are read from disk, so this costs one read per archived order of the user.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` or `persistenceCorrupt`
    ///   when an archived file cannot be read (a damaged one is quarantined).
    public func orders(forUser userID: String) throws(PurchaseKitError) -> [Order] {
        try loadIfNeeded()
        var result = index.openOrders(forUser: userID)
        for (id, entry) in index.archivedEntries where entry.userID == userID {
            if let order = try readArchived(id: id, entry: entry) { result.append(order) }
        }
        return result.sorted(by: FileOrderIndex.creationOrder)
    }

    /// The order with this id, open or archived (archived ones are read from disk).
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceCorrupt`` when its archived file is damaged
    ///   (it is then quarantined), ``PurchaseKitError/Code/persistenceReadFailed`` when it cannot be read.
    public func order(id: String) throws(PurchaseKitError) -> Order? {
        try loadIfNeeded()
        if let open = index.openOrders[id] { return open }
        guard let entry = index.entry(for: id) else { return nil }
        return try readArchived(id: id, entry: entry)
    }

    /// The order whose store transaction has this id, open or archived.
    public func order(transactionID: String) throws(PurchaseKitError) -> Order? {
        try loadIfNeeded()
        guard let id = index.orderID(forTransaction: transactionID) else { return nil }
        return try order(id: id)
    }

    /// The order whose payment carried this order token, open or archived.
    public func order(token: String) throws(PurchaseKitError) -> Order? {
        try loadIfNeeded()
        guard let id = index.orderID(forToken: token) else { return nil }
        return try order(id: id)
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

    /// Deletes an order, open or archived. Deleting a missing order is not an error.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed`` when the file cannot be deleted.
    public func remove(orderID: String) throws(PurchaseKitError) {
        try loadIfNeeded()
        guard let entry = index.entry(for: orderID) else { return }
        do throws(FileSystemError) {
            try fileSystem.removeFile(atPath: path(of: entry.place) + "/" + entry.fileName)
        } catch {
            throw PurchaseKitError.writeFailed(error, "Order '\(orderID)' could not be deleted", orderID: orderID)
        }
        index.remove(id: orderID)
        try synchronize([entry.place], after: "Order '\(orderID)' was deleted", orderID: orderID)
    }

    /// Every archived order, oldest first (for diagnostics and tests; reads each file).
    public func archivedOrders() throws(PurchaseKitError) -> [Order] {
        try loadIfNeeded()
        var orders: [Order] = []
        for (id, entry) in index.archivedEntries {
            if let order = try readArchived(id: id, entry: entry) { orders.append(order) }
        }
        return orders.sorted(by: FileOrderIndex.creationOrder)
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
