import Foundation

/// Writes a snapshot of an index as the start of journal generation
/// `generation`, a step at a time on the store's thread (see
/// ``JournalWriter/BackgroundWork``), then deletes the files it replaces.
///
/// The snapshot goes to a temporary file, flushed piece by piece as it grows
/// (so that no single flush stalls the journal for long), then closed,
/// renamed to `snapshot-<generation>` and the folder flushed: a crash at any
/// moment leaves either the old files or the new snapshot, whole. Only then
/// are older snapshots and journals deleted, and `extraFiles` (the files of
/// a `FileOrderStore` that were imported).
struct SnapshotWrite: JournalWriter.BackgroundWork {
    /// Bytes written per step.
    static let stepSize = 1 << 20

    let index: JournalIndex
    let generation: UInt64
    let configuration: JournalOrderStore.Configuration
    /// Files deleted once the snapshot is durable, and the folders to flush after.
    var extraFiles: [String] = []
    var extraFolders: [String] = []
    let completion: @Sendable (Result<Int, FileSystemError>) -> Void
    /// Whether the index is still the store's: false once the store began
    /// to reload (after a failed write) since the snapshot began.
    var isCurrent: @Sendable () -> Bool = { true }

    /// An order to write: open (whole), or archived or compacted (its binary form).
    private enum Put {
        case open(Order)
        case stored(place: JournalIndex.Place, bytes: Data)
    }

    private var puts: [Put] = []
    private var position = 0
    private var file: (descriptor: Int32, path: String)?
    private var size = 0

    init(index: JournalIndex, generation: UInt64, configuration: JournalOrderStore.Configuration,
         extraFiles: [String] = [], extraFolders: [String] = [],
         completion: @escaping @Sendable (Result<Int, FileSystemError>) -> Void) {
        self.index = index
        self.generation = generation
        self.configuration = configuration
        self.extraFiles = extraFiles
        self.extraFolders = extraFolders
        self.completion = completion
    }

    mutating func step(_ context: inout JournalWriter.Context) -> Bool {
        do throws(FileSystemError) {
            return try advance(&context)
        } catch {
            if let file {
                try? context.fileSystem.close(file.descriptor, path: file.path)
                _ = try? context.fileSystem.removeFile(atPath: file.path)
            }
            log(.error, "A snapshot of the order journal could not be written; the journal keeps every change.",
                ["error": error.description])
            completion(.failure(error))
            return true
        }
    }

    private mutating func advance(_ context: inout JournalWriter.Context) throws(FileSystemError) -> Bool {
        // The index was taken when the snapshot began, with records queued
        // before it; if writing them failed since, their calls failed, and a
        // snapshot must not make them durable. The reload writes a fresh one.
        // (A reload clears the failure: the snapshot then learns it is stale
        // from `isCurrent`.)
        if let failure = context.failure { throw failure }
        guard isCurrent() else { throw FileSystemError(.write, errorNumber: ECANCELED, path: context.folder) }
        let fileSystem = context.fileSystem
        var out = ByteWriter(capacity: Self.stepSize + 4096)
        if file == nil {
            puts = Self.inPutOrder(index)
            let path = context.folder + "/" + FileNameCoding.temporaryName()
            file = (try fileSystem.createFile(atPath: path, mode: JournalFiles.fileMode), path)
            JournalRecord.header(.snapshot, generation: generation, orders: UInt64(puts.count), into: &out)
            // The removed ids first: a snapshot that loses its tail (reported) keeps them,
            // so that an import in the same launch cannot bring a removed order back.
            for id in index.removedIDs.sorted() { JournalRecord.remove(id: id, into: &out) }
        }
        guard let file else { return true }
        let total = puts.count
        while position < total, out.bytes.count < Self.stepSize {
            switch puts[position] {
            case .open(let order): JournalRecord.put(order, place: .open, into: &out)
            case .stored(let place, let bytes): JournalRecord.put(encoded: bytes, place: place, into: &out)
            }
            position += 1
        }
        let isLast = position == total
        if isLast {
            // Spends and renewal states are small and few next to orders: all of them go in the last step.
            for spend in index.allSpends { JournalRecord.spend(spend, into: &out) }
            for record in index.allRenewalStates { JournalRecord.renewal(record, into: &out) }
            JournalRecord.end(count: UInt64(total), into: &out)
        }
        try fileSystem.write(Data(out.bytes), to: file.descriptor, path: file.path)
        size += out.bytes.count
        guard isLast else {
            try fileSystem.synchronizeData(file.descriptor, path: file.path)
            return false
        }
        try fileSystem.synchronize(file.descriptor, path: file.path)
        try fileSystem.close(file.descriptor, path: file.path)
        self.file = nil
        try fileSystem.rename(file.path, to: context.folder + "/" + JournalFiles.snapshotName(generation))
        try fileSystem.synchronizeDirectory(atPath: context.folder)
        log(.info, "Wrote a snapshot of the order journal.", ["orders": String(total), "bytes": String(size)])
        deleteReplacedFiles(context)
        completion(.success(size))
        return true
    }

    /// Every order, in the order the index last put them: a launch that puts
    /// them in this order links each transaction id and token to the order
    /// the index links it to, also when two orders hold it (see ``JournalIndex/Entry/sequence``).
    private static func inPutOrder(_ index: JournalIndex) -> [Put] {
        var keyed: [(sequence: UInt64, put: Put)] = []
        keyed.reserveCapacity(index.openOrders.count + index.stored.count)
        for (id, order) in index.openOrders {
            keyed.append((index.entry(for: id)?.sequence ?? 0, .open(order)))
        }
        for (id, bytes) in index.stored {
            guard let entry = index.entry(for: id) else { continue }
            keyed.append((entry.sequence, .stored(place: entry.place, bytes: bytes)))
        }
        keyed.sort { $0.sequence < $1.sequence }
        return keyed.map(\.put)
    }

    /// Deletes what the snapshot replaces. A failure loses nothing: the files
    /// are obsolete, and the next launch deletes them.
    private func deleteReplacedFiles(_ context: JournalWriter.Context) {
        let fileSystem = context.fileSystem
        do throws(FileSystemError) {
            var replaced: [String] = []
            for name in try fileSystem.contentsOfDirectory(atPath: context.folder).sorted() {
                switch JournalFiles.classify(name) {
                case .snapshot(let other) where other < generation, .journal(let other) where other < generation:
                    replaced.append(context.folder + "/" + name)
                default:
                    break
                }
            }
            for path in replaced + extraFiles { try fileSystem.removeFile(atPath: path) }
            try fileSystem.synchronizeDirectory(atPath: context.folder)
            for folder in extraFolders { try fileSystem.synchronizeDirectory(atPath: folder) }
        } catch {
            log(.warning, "Files replaced by a snapshot could not all be deleted; the next launch deletes them.",
                ["error": error.description])
        }
    }

    private func log(_ level: PurchaseLogLevel, _ message: String, _ metadata: [String: String]) {
        let handler = configuration.logHandler
        guard level >= handler.minimumLevel else { return }
        handler.log(LogRecord(level: level, message: message, metadata: LogRedaction.redact(metadata), date: configuration.clock.now))
    }
}
