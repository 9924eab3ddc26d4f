import Foundation

/// The ``OrderStore`` an app uses: an append-only journal of checksummed
/// binary records and a compact snapshot, written by a thread of the store's
/// own, so that a save costs about one `fdatasync` — shared by every save in
/// flight — and a launch reads one snapshot instead of one file per order.
/// (While saves come one order at a time, as one purchase at a time makes
/// them, a durable save that finds that thread idle writes and flushes its
/// record itself, sparing two thread wake-ups; saves made meanwhile wait for
/// it and go to the thread, in order.)
///
/// Layout, all owner-only (directories `0700`, files `0600`):
///
/// ```
/// <directory>/journal/snapshot-…   every order, as of the start of a journal generation
/// <directory>/journal/log-…        what happened since, in order (one file per launch)
/// <directory>/quarantine/          bytes that could not be read, kept for diagnosis
/// ```
///
/// **Durability.** A save, archive or removal appends one record to the
/// journal. Records queued while a flush is in progress are written and
/// flushed together (group commit). A call returns once its record is durable,
/// except for the three changes whose loss a launch makes good, which return
/// as soon as their record is queued, and are written and flushed with the
/// next record that needs a flush (records reach the disk in order, so a later
/// durable record makes every earlier one durable too):
///
/// - an order saved as ``OrderStatus/created``: no payment has started — the
///   engine saves it `purchasing`, durably, before the store sees the payment —
///   so losing it loses nothing; it is the order *and* its payment start that
///   the engine needs on disk, and they share one flush;
/// - an order saved as ``OrderStatus/completed``: its `delivered` version is
///   durable, and a launch finishes a delivered order again (finishing twice
///   does nothing) and archives it;
/// - an archive move: a launch archives a finished order it finds open.
///
/// The engine saves an order that comes to rest (`completed`, `failed`,
/// `cancelled`, ...) straight into the archive: one record for the save and
/// the move, flushed when a save of that order would be.
///
/// Call ``flush()`` to make those durable at once, for instance when the app
/// moves to the background. Lookups see every change as soon as its call is
/// made, durable or not yet.
///
/// **Snapshots.** When the journal has grown past
/// ``Configuration/snapshotThreshold`` (and the last snapshot's size),
/// the store starts a new journal file and writes every order to a new
/// snapshot in the background (a temporary file, flushed, renamed, the folder
/// flushed), then deletes the files it replaces. A launch reads the newest
/// snapshot and replays the journals after it.
///
/// **Damage.** Every record carries a CRC-32. A launch keeps every whole
/// record; a torn tail, garbage, a damaged record or a damaged snapshot is
/// copied to the quarantine folder and reported, once, by
/// ``loadOpenOrders()`` as a ``PurchaseKitError/Code/persistenceCorrupt``
/// problem, and a fresh snapshot replaces the damaged files. Nothing makes the
/// load crash. A file the store cannot read at all (an I/O error) fails the
/// call instead, and is never deleted.
///
/// **A failed write or flush** fails the calls waiting for it, and the store
/// reloads from disk at its next call. It reads back only what the journal
/// held at its last good flush: after a failed write-back, Linux may keep
/// the unwritten bytes readable in its cache and acknowledge later flushes
/// without writing them, so a record whose flush failed could otherwise pass
/// for a durable one. What was written after that flush is copied to the
/// quarantine folder and reported as a ``PurchaseKitError/Code/persistenceWriteFailed``
/// problem, and a fresh snapshot replaces the file. The changes acknowledged
/// before their flush that the failure lost (written after that flush, or not
/// written at all) are done again: their calls returned, and the next change
/// may build on them.
///
/// **Retention** is ``FileOrderStore``'s: an archived order is kept whole for
/// ``Configuration/archiveRetention`` after its last change, then compacted —
/// its receipt, metadata and hint dropped, everything else kept for good,
/// answering every lookup — at the first use after launch and on
/// ``compactArchive()``. Only ``remove(orderID:)`` deletes an order.
///
/// **Migration.** Opening a directory written by ``FileOrderStore`` imports
/// every order of its `orders`, `archive` and `ledger` folders into a
/// snapshot, then deletes the imported files. Files whose deletion failed (or
/// was lost to a power cut) are read again at the next launch, skipping every
/// order the journal holds or has removed, and deleted again. So are files it
/// could not read or hold (an I/O error, an order above the record limit):
/// until then, a lookup by transaction id or token that finds nothing throws
/// instead of answering none, since the order may be in one of them.
///
/// Use one store per directory in a process, and close it (``close()``)
/// before opening another on the same directory.
public final class JournalOrderStore: OrderStore {
    /// How a ``JournalOrderStore`` behaves.
    public struct Configuration: Sendable {
        /// How long an archived order is kept whole after its last change, in
        /// seconds; thirty days by default. After that its receipt, metadata
        /// and hint are dropped and the rest is kept for good.
        public var archiveRetention: TimeInterval
        /// Where "now" comes from, for compacting the archive.
        public var clock: any PurchaseClock
        /// Receives a line for every record set aside, snapshot written or order compacted.
        public var logHandler: any PurchaseLogHandler
        /// The largest order the store writes or reads, in bytes of its binary
        /// form; 1 MiB by default. A save of a larger order is refused, so that
        /// nothing is written that could not be read back; lowering it later
        /// sets aside the records that no longer fit.
        public var maximumRecordSize: Int
        /// How many bytes the journal may grow by before a new snapshot is
        /// written (at least the last snapshot's size); 1 MiB by default.
        public var snapshotThreshold: Int
        /// The file-system calls; tests replace them to inject faults.
        package var fileSystem: any FileSystem = POSIXFileSystem()
        /// How much room a journal file reserves ahead of its end at a time; 0 reserves none.
        package var journalReservation = 256 * 1024
        /// Makes the file-system calls on the calling thread, before each call
        /// returns, instead of on the store's own thread: for a caller that
        /// makes one call at a time and needs the same calls in the same order
        /// every run, such as the fault simulation. Never for an app: every
        /// flush then blocks the caller.
        package var writesOnCallingThread = false

        /// Creates a configuration.
        public init(archiveRetention: TimeInterval = 30 * 24 * 60 * 60,
                    clock: any PurchaseClock = SystemClock(),
                    logHandler: any PurchaseLogHandler = SilentLogHandler(),
                    maximumRecordSize: Int = 1024 * 1024,
                    snapshotThreshold: Int = 1024 * 1024) {
            self.archiveRetention = archiveRetention
            self.clock = clock
            self.logHandler = logHandler
            self.maximumRecordSize = maximumRecordSize
            self.snapshotThreshold = snapshotThreshold
        }
    }

    /// The directory holding the store's folders.
    public let directory: URL
    let configuration: Configuration
    /// `<directory>/journal`.
    let folder: String
    let quarantinePath: String
    let writer: JournalWriter
    let state = Locked(JournalState())
    /// How many loads have begun (launch, and each reload after a failed
    /// write). A lock of its own, taken last: the store's thread asks it while
    /// a snapshot runs, with or without the state lock held by a caller.
    let loads = Locked(UInt64(0))

    /// Opens (creating if needed) the store in `directory`.
    ///
    /// A directory created here is owner-only (`0700`); the store's folders
    /// always are. Nothing is read until the first call.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed`` when the folders cannot be created.
    public init(directory: URL, configuration: Configuration = .init()) throws(PurchaseKitError) {
        let root = directory.path
        self.directory = directory
        self.configuration = configuration
        self.folder = root + "/" + JournalFiles.folderName
        self.quarantinePath = root + "/" + JournalFiles.quarantineFolderName
        try StoreFolders.prepare(root: root, folders: [folder, quarantinePath], fileSystem: configuration.fileSystem)
        writer = JournalWriter(fileSystem: configuration.fileSystem, folder: folder, reservation: configuration.journalReservation,
                               onCallingThread: configuration.writesOnCallingThread)
    }

    /// Opens the store over another file system than the real one, such as
    /// the simulator's power-loss disk.
    package convenience init(directory: URL, fileSystem: any FileSystem,
                             configuration: Configuration = .init()) throws(PurchaseKitError) {
        var configuration = configuration
        configuration.fileSystem = fileSystem
        try self.init(directory: directory, configuration: configuration)
    }

    deinit {
        writer.stop()
    }

    var fileSystem: any FileSystem { configuration.fileSystem }

    // MARK: Writing

    /// Saves the order; see the type's documentation for when it is durable.
    /// An archived or compacted order with the same id becomes open again.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed`` when the order is larger than
    ///   ``Configuration/maximumRecordSize`` (nothing is written) or the journal could not be
    ///   written or flushed (the store then reloads at its next call, without what was not flushed).
    public func save(_ order: Order) async throws {
        let record = try putRecord(order, place: .open)
        try await commit(record.bytes, durable: Self.mustBeDurable(order.status),
                         about: Subject(orderID: order.id, endsOrder: order.status == .completed)) { index throws(PurchaseKitError) in
            index.putOpen(order)
            return true
        }
    }

    /// Saves the order straight into the archive, as one record: a put of
    /// the order archived (see ``ArchivingOrderStore``). Durable when a save
    /// of the order would be.
    package func saveArchived(_ order: Order) async throws {
        let record = try putRecord(order, place: .archived)
        // The order's encoding, as a save and then an archive move would have kept it.
        let encoded = Data(record.bytes[(JournalFrame.headerSize + 2)...])
        let keys = OrderBinaryCoding.Keys(order)
        try await commit(record.bytes, durable: Self.mustBeDurable(order.status),
                         about: Subject(orderID: order.id, endsOrder: true)) { index throws(PurchaseKitError) in
            index.putStored(keys, bytes: encoded, place: .archived)
            return true
        }
    }

    /// The put record of `order` in `place`, within the record size limit.
    private func putRecord(_ order: Order, place: JournalIndex.Place) throws(PurchaseKitError) -> ByteWriter {
        var record = ByteWriter(capacity: 512)
        JournalRecord.put(order, place: place, into: &record)
        guard record.bytes.count - JournalFrame.headerSize - 2 <= configuration.maximumRecordSize else {
            throw PurchaseKitError(
                .persistenceWriteFailed,
                "Order '\(order.id)' takes \(record.bytes.count) bytes, more than the store's limit of \(configuration.maximumRecordSize); it was not saved.",
                advice: "Keep less in the order's metadata, or raise JournalOrderStore.Configuration.maximumRecordSize.",
                orderID: order.id)
        }
        return record
    }

    /// Whether a save must be durable before it returns. The exceptions are
    /// the statuses whose loss a launch makes good (see the type's documentation).
    static func mustBeDurable(_ status: OrderStatus) -> Bool {
        switch status {
        case .created:
            // No payment yet: the engine saves `purchasing` durably before the store sees one.
            return false
        case .completed:
            // The durable `delivered` version comes back; a launch finishes and archives it again.
            return false
        default:
            return true
        }
    }

    /// Moves an open order to the archive. Returns once the move is queued: a
    /// launch archives a finished order it finds open again (see the type's documentation).
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound`` when there is no such open order.
    public func archive(orderID: String) async throws {
        var record = ByteWriter(capacity: 64)
        JournalRecord.archive(id: orderID, into: &record)
        try await commit(record.bytes, durable: false, about: Subject(orderID: orderID, endsOrder: true)) { index throws(PurchaseKitError) in
            guard index.archive(id: orderID) else {
                throw PurchaseKitError(.orderNotFound, "There is no open order '\(orderID)' to archive.",
                                       advice: "Reload the open orders; it may have been archived already.", orderID: orderID)
            }
            return true
        }
    }

    /// Deletes an order for good, wherever it is: open, archived or compacted.
    /// Deleting a missing order is not an error. Durable when it returns,
    /// also when another call removed the order and is still flushing.
    /// Its id is kept for good (a few bytes in every snapshot), also when the
    /// journal does not hold the order, so that a ``FileOrderStore`` file of
    /// it that an import left behind (unread, too large, or not yet deleted)
    /// cannot bring it back. Only removing an id already removed writes nothing.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed`` when the record cannot be made durable.
    public func remove(orderID: String) async throws {
        var record = ByteWriter(capacity: 64)
        JournalRecord.remove(id: orderID, into: &record)
        try await commit(record.bytes, durable: true, about: Subject(orderID: orderID, endsOrder: true)) { index throws(PurchaseKitError) in
            index.remove(id: orderID) || index.markRemoved(orderID)
        }
    }

    /// Makes every change made so far durable, including the ones that return
    /// before their flush (`created` and `completed` saves, open or straight
    /// into the archive, and archive moves).
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed`` when the flush failed.
    public func flush() async throws {
        try await ready()
        do {
            try await writer.flush()
        } catch {
            throw PurchaseKitError.wrap(error, as: .persistenceWriteFailed, "The order journal could not be flushed.",
                                        advice: "Check free space and storage health, then try again.")
        }
    }

    /// Flushes what is pending, lets a snapshot in progress finish, and stops
    /// the store's thread. Later calls fail; open a new store to go on.
    public func close() async {
        _ = try? await writer.flush()
        state.withLock { $0.isClosed = true }
        await writer.stopAndWait()
    }

    /// Leaves the store as the death of its process would: records not
    /// written yet are dropped, nothing is flushed, later calls fail. Crash
    /// tests and the fault simulation call it before the next process opens
    /// the directory, or the power is cut.
    package func abandonNow() {
        state.withLock { $0.isClosed = true }
        writer.discardAndStop()
    }

    /// ``abandonNow()``, then waits until the store's thread has ended, so
    /// that it makes no call after the power comes back.
    package func abandon() async {
        abandonNow()
        await writer.waitUntilEnded()
    }

    /// Returns once every queued record is written (not necessarily flushed)
    /// and any snapshot in progress is finished: tests use it to make the
    /// order of file-system calls the same in every run.
    package func waitUntilWritten() async {
        await writer.waitUntilIdle()
    }
}

extension JournalOrderStore: ArchivingOrderStore {}
