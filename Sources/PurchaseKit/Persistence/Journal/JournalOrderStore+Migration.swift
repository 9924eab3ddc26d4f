import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The folders a ``FileOrderStore`` keeps its orders in.
struct LegacyFolders {
    static let names = ["orders", "archive", "ledger", "spends", "renewals"]

    let root: String
    let fileSystem: any FileSystem

    /// Whether any of them holds an entry other than a hidden file. A folder that cannot be listed
    /// counts as holding one: the import then reports why it cannot read it,
    /// rather than the orders in it being passed over.
    func holdFiles() -> Bool {
        for name in Self.names {
            do throws(FileSystemError) {
                // Its own temporary files count: the import's load deletes them.
                let entries = try fileSystem.contentsOfDirectory(atPath: root + "/" + name)
                if entries.contains(where: { !$0.hasPrefix(".") || FileNameCoding.isTemporary($0) }) { return true }
            } catch {
                if error.errorNumber != ENOENT { return true }
            }
        }
        return false
    }
}

/// What an import of ``FileOrderStore`` files leaves to do.
struct LegacyImport {
    /// The files to delete once a snapshot holding what they held is durable.
    var files: [String] = []
    /// Their folders, flushed after the deletion.
    var folders: [String] = []
    /// The spends files that could not be read (``FileOrderStore/everySpendsFile``:
    /// the folder could not be listed): the spends of their users are not answered.
    var unreadSpendFiles: Set<String> = []
    /// The order files left in place unread or too large (``JournalIndex/unreadOrderFiles``).
    var unreadOrderFiles: Set<String> = []
}

extension JournalOrderStore {
    /// Imports the orders of a ``FileOrderStore`` in the same directory: every
    /// open, archived and compacted order the journal does not hold already
    /// (an order it holds was imported by an earlier launch, or changed since)
    /// and did not remove (a copy whose deletion failed, or was not flushed).
    /// Returns the files whose orders the index now holds, to delete once a
    /// snapshot holding them is durable, their folders, and the names of the
    /// spends and order files it could not read.
    ///
    /// The files are read by a `FileOrderStore`, with its own rules for damaged
    /// and foreign entries (they are quarantined and reported). A one-time
    /// cost, paid at the first launch after the switch.
    func importLegacyFiles(into outcome: inout JournalLoader.Outcome) async throws(PurchaseKitError) -> LegacyImport {
        let legacy = try legacyStore()
        let export = try await legacy.export()
        outcome.problems += export.problems
        var files: [String] = []
        var unread = export.unread
        var imported = 0
        for item in export.items {
            if !outcome.index.holdsOrRemoved(item.order.id) {
                var writer = ByteWriter()
                OrderBinaryCoding.encode(item.order, into: &writer)
                guard writer.bytes.count <= configuration.maximumRecordSize else {
                    outcome.problems.append(PurchaseKitError(
                        .persistenceCorrupt,
                        "Order '\(item.order.id)' of the FileOrderStore folders takes \(writer.bytes.count) bytes, more than the journal's limit of \(configuration.maximumRecordSize); its file was left in place.",
                        advice: "Raise JournalOrderStore.Configuration.maximumRecordSize; it is imported at the next launch.",
                        orderID: item.order.id))
                    unread.insert(item.file ?? "ledger: order '\(item.order.id)'")
                    continue
                }
                if item.place == .open {
                    outcome.index.putOpen(item.order)
                } else {
                    outcome.index.putStored(OrderBinaryCoding.Keys(item.order), bytes: Data(writer.bytes), place: item.place)
                }
                imported += 1
            }
            if let file = item.file { files.append(file) }
        }
        let spends = await legacy.exportSpends()
        outcome.problems += spends.problems
        for spend in spends.spends { outcome.index.recordSpend(spend) }
        files += spends.files
        let renewals = await legacy.exportRenewalStates()
        for record in renewals.records { outcome.index.saveRenewalState(record) }
        files += renewals.files
        var folders = export.folders
        if !spends.files.isEmpty { folders.append(await legacy.spendsFolderPath) }
        if !renewals.files.isEmpty { folders.append(await legacy.renewalsFolderPath) }
        for segment in export.ledgerSegments where segment.ids.allSatisfy({ outcome.index.holdsOrRemoved($0) }) {
            files.append(segment.path)
        }
        log(.notice, "Imported the orders of a FileOrderStore into the journal.",
            ["orders": String(imported), "files": String(files.count)])
        return LegacyImport(files: files, folders: folders, unreadSpendFiles: spends.unread, unreadOrderFiles: unread)
    }

    /// The largest ``FileOrderStore`` file an import reads, in bytes, unless
    /// the journal's record limit calls for more.
    static let largestImportedFile = 64 * 1024 * 1024

    /// A ``FileOrderStore`` over the same directory, to read what it left.
    private func legacyStore() throws(PurchaseKitError) -> FileOrderStore {
        var legacyConfiguration = FileOrderStore.Configuration(
            archiveRetention: configuration.archiveRetention, clock: configuration.clock, logHandler: configuration.logHandler,
            // The app's FileOrderStore may have allowed larger files than its 1 MiB default:
            // read them, so that an order too large for the journal stays in its file,
            // reported by id, instead of being set aside as unusable. (JSON takes more
            // room than the binary form, hence twice the record limit.)
            maximumFileSize: max(Self.largestImportedFile, 2 * configuration.maximumRecordSize))
        legacyConfiguration.fileSystem = fileSystem
        return try FileOrderStore(directory: directory, configuration: legacyConfiguration)
    }
}
