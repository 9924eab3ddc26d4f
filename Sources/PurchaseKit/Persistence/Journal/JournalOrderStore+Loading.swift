import Foundation

extension JournalOrderStore {
    /// Reads the folder into memory on the store's thread, imports a
    /// `FileOrderStore`'s files if there are any, compacts what expired, and
    /// writes a fresh snapshot when the files need one (damage set aside, a
    /// pile of journals, an import, a compaction). Installs the result.
    func load() async throws(PurchaseKitError) {
        let loader = JournalLoader(configuration: configuration, root: directory.path, folder: folder, quarantine: quarantine)
        guard let result = await writer.perform({ context in
            Result { () throws(PurchaseKitError) in try loader.load(&context) }
        }) else { throw JournalWriter.closedError }
        var outcome = try result.get()
        var importedFiles = LegacyImport()
        if outcome.hasLegacyFiles {
            importedFiles = try await importLegacyFiles(into: &outcome)
        }
        let compacted = Self.compactExpired(&outcome.index, now: configuration.clock.now, retention: configuration.archiveRetention)
        if compacted > 0 {
            log(.info, "Compacted archived orders past their retention.", ["count": String(compacted)])
        }
        var snapshotBytes = outcome.snapshotBytes
        var journalBytes = outcome.journalBytes
        var redo = outcome.redo
        if outcome.needsSnapshot || compacted > 0 || !importedFiles.files.isEmpty {
            let written = await writeSnapshot(outcome.index, generation: outcome.nextGeneration,
                                              extraFiles: importedFiles.files, extraFolders: importedFiles.folders)
            switch written {
            case .success(let size):
                snapshotBytes = size
                journalBytes = 0
                redo = []
            case .failure(let error):
                // The old files still hold everything; the next launch tries again.
                outcome.problems.append(.writeFailed(error, "A fresh snapshot of the order journal could not be written",
                                                     orderID: nil, advice: "Nothing was lost; the store tries again at the next launch."))
            }
        }
        outcome.index.unreadSpendFiles = importedFiles.unreadSpendFiles
        outcome.index.unreadOrderFiles = importedFiles.unreadOrderFiles
        let loaded = outcome
        state.withLock { s in
            // Before any later record: what was lost is read once, and what is
            // done again goes first to the new journal, unless the snapshot holds it.
            if loaded.droppedBytes > 0 { writer.run { $0.dropped.removeFirst(min(loaded.droppedBytes, $0.dropped.count)) } }
            if !redo.isEmpty {
                writer.append(redo, needsFlush: false, waiter: nil)
                journalBytes += redo.count
            }
            s.index = loaded.index
            s.unreportedProblems += loaded.problems
            s.generation = loaded.nextGeneration
            s.snapshotBytes = snapshotBytes
            s.journalBytes = journalBytes
            s.snapshotInProgress = false
            s.phase = .loaded
        }
    }

    /// Writes a snapshot now and waits for it.
    func writeSnapshot(_ index: JournalIndex, generation: UInt64, extraFiles: [String] = [],
                       extraFolders: [String] = []) async -> Result<Int, FileSystemError> {
        let configuration = self.configuration
        return await suspend { continuation in
            let started = writer.start(SnapshotWrite(index: index, generation: generation, configuration: configuration,
                                                     extraFiles: extraFiles, extraFolders: extraFolders) { result in
                continuation.resume(returning: result)
            })
            if !started { continuation.resume(returning: .failure(FileSystemError(.write, errorNumber: EBADF, path: folder))) }
        }
    }

    var quarantine: Quarantine {
        Quarantine(path: quarantinePath, fileSystem: fileSystem, clock: configuration.clock, logHandler: configuration.logHandler)
    }

    /// Sends a line to the configured handler, stamped by the configured clock.
    func log(_ level: PurchaseLogLevel, _ message: String, _ metadata: [String: String]) {
        let handler = configuration.logHandler
        guard level >= handler.minimumLevel else { return }
        handler.log(LogRecord(level: level, message: message, metadata: LogRedaction.redact(metadata), date: configuration.clock.now))
    }
}
