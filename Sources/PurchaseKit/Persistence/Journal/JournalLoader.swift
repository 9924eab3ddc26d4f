import Foundation

/// Reads a ``JournalOrderStore``'s folder into an index, on the store's thread:
/// the newest snapshot, then every journal after it, record by record.
///
/// Never fails because of damage: bytes that are not a whole record, and
/// records that cannot be read, are copied to the quarantine folder and
/// become problems for the report, and the load asks for a fresh snapshot so
/// that the damaged files go. Fails only when a file cannot be read at all or
/// was written by a newer PurchaseKit, in which case nothing is changed on disk.
struct JournalLoader {
    /// What the load found.
    struct Outcome: Sendable {
        var index = JournalIndex()
        var problems: [PurchaseKitError] = []
        /// The generation of the next journal file: above every file found.
        var nextGeneration: UInt64 = 1
        var snapshotBytes = 0
        var journalBytes = 0
        /// Damage was set aside, or journals piled up: a fresh snapshot should replace the files.
        var needsSnapshot = false
        /// `FileOrderStore` folders with entries are in the directory: import them.
        var hasLegacyFiles = false
        /// How many bytes of records lost to a failure since the last reload
        /// this load read (see ``JournalWriter/Context/dropped``).
        var droppedBytes = 0
        /// The records among them this load did again (see ``JournalRedo``):
        /// not on disk until a snapshot or the journal holds them again.
        var redo: [UInt8] = []
    }

    /// Launches that each left a journal file before a snapshot is written at the next one.
    static let maximumJournalFiles = 8
    /// The largest file read: far above any real store, low enough to refuse a runaway file.
    static let fileReadLimit = Int(Int32.max - 1)

    let configuration: JournalOrderStore.Configuration
    let root: String
    let folder: String
    let quarantine: Quarantine

    var fileSystem: any FileSystem { configuration.fileSystem }

    func load(_ context: inout JournalWriter.Context) throws(PurchaseKitError) -> Outcome {
        var outcome = Outcome()
        let names: [String]
        do throws(FileSystemError) {
            names = try fileSystem.contentsOfDirectory(atPath: folder).sorted()
        } catch {
            throw PurchaseKitError.readFailed(error, "The order journal's folder could not be listed")
        }
        var snapshots: [UInt64] = []
        var journals: [UInt64] = []
        var obsolete: [String] = []
        for name in names {
            switch JournalFiles.classify(name) {
            case .snapshot(let generation): snapshots.append(generation)
            case .journal(let generation): journals.append(generation)
            case .temporary: obsolete.append(name)
            case .hidden: break
            case .foreign:
                outcome.problems.append(quarantine.move(name, from: folder, label: "journal/\(name)", damage: PurchaseKitError(
                    .persistenceCorrupt, "The file 'journal/\(name)' is not part of the order journal.",
                    advice: "Something other than PurchaseKit put it there; the orders are unaffected.")))
            }
        }
        outcome.nextGeneration = ((snapshots + journals).max() ?? 0) + 1
        // The newest snapshot that is a file of ours; an entry that only bears the name is set aside.
        var base: UInt64?
        for generation in snapshots.sorted(by: >) {
            guard let size = try read(JournalFiles.snapshotName(generation), kind: .snapshot, unconfirmed: nil,
                                      into: &outcome) else { continue }
            outcome.snapshotBytes = size
            base = generation
            break
        }
        if let base {
            obsolete += snapshots.filter { $0 < base }.map(JournalFiles.snapshotName)
            obsolete += journals.filter { $0 < base }.map(JournalFiles.journalName)
        }
        var live: [UInt64] = []
        for generation in journals.sorted() where generation >= base ?? 0 {
            let name = JournalFiles.journalName(generation)
            let unconfirmed = context.unconfirmed.first { $0.path == folder + "/" + name }
            guard let size = try read(name, kind: .journal, unconfirmed: unconfirmed, into: &outcome) else { continue }
            outcome.journalBytes += size
            live.append(generation)
        }
        if live.count > Self.maximumJournalFiles { outcome.needsSnapshot = true }
        flush(live.map(JournalFiles.journalName), &outcome)
        if !obsolete.isEmpty { deleteObsolete(obsolete, &outcome) }
        outcome.hasLegacyFiles = LegacyFolders(root: root, fileSystem: fileSystem).holdFiles()
        redo(context.dropped, &outcome)
        context.reset(nextGeneration: outcome.nextGeneration)
        return outcome
    }

    /// Flushes the journals a previous process wrote: it may have died with
    /// records acknowledged before their flush still in the page cache, and
    /// a record this process makes durable must not outlive an earlier one.
    /// When that fails, a fresh snapshot holds what was read instead: an
    /// archive move this process makes durable must not be replayed, after a
    /// power cut, over an order whose unflushed `completed` save was lost.
    private func flush(_ names: [String], _ outcome: inout Outcome) {
        guard !names.isEmpty else { return }
        do throws(FileSystemError) {
            for name in names { try fileSystem.synchronizeFile(atPath: folder + "/" + name) }
            try fileSystem.synchronizeDirectory(atPath: folder)
        } catch {
            outcome.needsSnapshot = true
            outcome.problems.append(.writeFailed(error, "The journal left by the previous launch could not be flushed", orderID: nil,
                                                 advice: "A fresh snapshot replaces it; should that fail too, its last changes may not survive a power loss."))
        }
    }

    /// Deletes what a snapshot made obsolete and temporary files of interrupted
    /// snapshots. The folder is flushed first: the newest snapshot's rename must
    /// be durable before the files it replaces go.
    private func deleteObsolete(_ names: [String], _ outcome: inout Outcome) {
        do throws(FileSystemError) {
            try fileSystem.synchronizeDirectory(atPath: folder)
            for name in names { try fileSystem.removeFile(atPath: folder + "/" + name) }
            try fileSystem.synchronizeDirectory(atPath: folder)
            log(.notice, "Deleted journal files left by an interrupted snapshot.", ["count": String(names.count)])
        } catch {
            outcome.problems.append(.writeFailed(error, "Files of the order journal that a snapshot replaced could not be deleted",
                                                 orderID: nil, advice: "Nothing was lost; they are deleted again at the next launch."))
        }
    }

    /// Reads one file into the index. Returns the size of its records, or nil
    /// when the entry was no file of ours (a link, a FIFO...) and was set aside.
    /// With `unconfirmed` (this file's), only what was flushed is read.
    private func read(_ name: String, kind: JournalRecord.FileKind, unconfirmed: JournalWriter.UnconfirmedTail?,
                      into outcome: inout Outcome) throws(PurchaseKitError) -> Int? {
        let label = "journal/\(name)"
        let contents: FileContents
        do throws(FileSystemError) {
            contents = try fileSystem.readRegularFile(atPath: folder + "/" + name, maximumSize: Self.fileReadLimit)
        } catch {
            throw PurchaseKitError.readFailed(error, "The file '\(label)' of the order journal could not be read")
        }
        var data: Data
        switch contents {
        case .data(let bytes):
            data = bytes
        case .unusable(.tooLarge(let size, let limit)):
            throw PurchaseKitError(.persistenceReadFailed, "The file '\(label)' holds \(size) bytes, more than the \(limit) the store reads; it was left in place.",
                                   advice: "Nothing was changed. Move the store to a build that reads it, or contact support.")
        case .unusable(let unusable):
            // Not a file PurchaseKit writes: set aside, like any foreign entry.
            outcome.problems.append(quarantine.move(name, from: folder, label: label, damage: .unusableEntry(label, unusable)))
            return nil
        }
        if let unconfirmed, data.count > unconfirmed.confirmedSize {
            setAside(data.suffix(from: data.startIndex + unconfirmed.confirmedSize), of: name, at: unconfirmed.confirmedSize, &outcome)
            data = data.prefix(unconfirmed.confirmedSize)
        }
        var replay = JournalReplay(label: label, kind: kind, maximumRecordSize: configuration.maximumRecordSize)
        data.withUnsafeBytes { replay.apply($0, to: &outcome.index) }
        if let newer = replay.newerFormat {
            throw PurchaseKitError(.persistenceReadFailed, "The file '\(label)' was written by a newer PurchaseKit (format \(newer)); nothing was read.",
                                   advice: "Update the app: this version cannot read the orders it holds, and changes nothing on disk.")
        }
        for damage in replay.damaged {
            let bytes = data.subdata(in: (data.startIndex + damage.range.lowerBound)..<(data.startIndex + damage.range.upperBound))
            let problem = quarantine.keep(bytes, from: name, offset: damage.range.lowerBound, damage: damage.problem)
            outcome.problems.append(problem)
            outcome.needsSnapshot = outcome.needsSnapshot || problem.message.contains("moved to quarantine/")
        }
        if let missing = replay.missingEnd {
            outcome.problems.append(missing)
            outcome.needsSnapshot = true
        }
        return replay.endOfRecords
    }

    /// Does again, after everything the files hold, the records lost to a
    /// failure whose calls returned before their flush (see ``JournalRedo``).
    private func redo(_ dropped: Data, _ outcome: inout Outcome) {
        outcome.droppedBytes = dropped.count
        outcome.redo = JournalRedo.records(in: dropped, maximumRecordSize: configuration.maximumRecordSize)
        guard !outcome.redo.isEmpty else { return }
        var replay = JournalReplay(label: "redo", kind: .journal, maximumRecordSize: configuration.maximumRecordSize)
        outcome.redo.withUnsafeBytes { replay.apply($0, to: &outcome.index) }
        outcome.needsSnapshot = true
    }

    /// Sets aside what this process wrote to a journal file after its last
    /// flush, before a write or flush failed (see ``JournalWriter/UnconfirmedTail``):
    /// the records are copied to the quarantine folder and not counted, and
    /// a fresh snapshot replaces the file, so that they do not come back.
    /// (Should that snapshot fail, later reloads in this process still leave
    /// them out; the next launch reads the file whole, as after a crash.)
    private func setAside(_ tail: Data, of name: String, at offset: Int, _ outcome: inout Outcome) {
        outcome.needsSnapshot = true
        // The room reserved past the records holds zeros: only the records are kept.
        guard let last = tail.lastIndex(where: { $0 != 0 }) else { return }
        let records = tail[tail.startIndex...last]
        outcome.problems.append(quarantine.keep(Data(records), from: name, offset: offset, damage: PurchaseKitError(
            .persistenceWriteFailed,
            "The last \(records.count) bytes written to 'journal/\(name)' were never confirmed on disk (a write or flush failed), so they were not read back.",
            advice: "The calls that wrote them failed; retry them. The changes acknowledged before their flush among them were kept.")))
    }

    private func log(_ level: PurchaseLogLevel, _ message: String, _ metadata: [String: String]) {
        let handler = configuration.logHandler
        guard level >= handler.minimumLevel else { return }
        handler.log(LogRecord(level: level, message: message, metadata: LogRedaction.redact(metadata), date: configuration.clock.now))
    }
}
