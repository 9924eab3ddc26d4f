import Foundation

extension FileOrderStore {
    private var renewalsFolder: String { directory.path + "/renewals" }

    /// Keeps a renewal state in the user's renewals file (`<directory>/renewals/`,
    /// one JSON file per user, named like the spends file), rewritten whole and
    /// flushed. A damaged file is a lost cache: it is replaced.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed`` when the file cannot be written.
    public func saveRenewalState(_ record: RenewalStateRecord) async throws {
        var records = readRenewalsFile(of: record.userID)
        let index = records.firstIndex { $0.userID == record.userID && $0.originalTransactionID == record.originalTransactionID }
        if let index {
            guard record.replaces(records[index]) else { return }
            records[index] = record
        } else {
            records.append(record)
        }
        let data: Data
        do {
            data = try JSONEncoder().encode(records)
        } catch {
            throw PurchaseKitError(.persistenceWriteFailed, "A renewal state could not be encoded.",
                                   advice: "Report this; the engine asks the store again.", underlying: error)
        }
        let fileSystem = configuration.fileSystem
        try StoreFolders.prepare(root: directory.path, folders: [renewalsFolder], fileSystem: fileSystem)
        do throws(FileSystemError) {
            try fileSystem.writeDurably(data, directory: renewalsFolder, fileName: FileNameCoding.fileName(for: record.userID),
                                        mode: Self.fileMode)
        } catch {
            throw PurchaseKitError.writeFailed(error, "A renewal state could not be saved", orderID: nil,
                                               advice: "The engine asks the store again at the next refresh.")
        }
    }

    /// The renewal states kept for one user; none when the file is missing or damaged.
    public func renewalStates(forUser userID: String) async throws -> [RenewalStateRecord] {
        RenewalStateRecord.sorted(readRenewalsFile(of: userID).filter { $0.userID == userID })
    }

    /// The records in the file named after `userID` (with those of any other
    /// user whose long id hashes to the same name, kept when rewriting).
    private func readRenewalsFile(of userID: String) -> [RenewalStateRecord] {
        let path = renewalsFolder + "/" + FileNameCoding.fileName(for: userID)
        guard case .data(let data)? = try? configuration.fileSystem.readRegularFile(atPath: path, maximumSize: configuration.maximumFileSize),
              let records = try? JSONDecoder().decode([RenewalStateRecord].self, from: data) else { return [] }
        return records
    }

    /// Every renewal state in the renewals folder, for ``JournalOrderStore``'s
    /// import, with the files to delete: those read, damaged ones (a lost
    /// cache) and leftover temporary files. A file that could not be read (an
    /// I/O error) stays for the next launch's import.
    func exportRenewalStates() -> (records: [RenewalStateRecord], files: [String]) {
        let fileSystem = configuration.fileSystem
        guard let names = try? fileSystem.contentsOfDirectory(atPath: renewalsFolder) else { return ([], []) }
        var records: [RenewalStateRecord] = []
        var files: [String] = []
        for name in names.sorted() {
            let path = renewalsFolder + "/" + name
            if FileNameCoding.isTemporary(name) {
                files.append(path)
                continue
            }
            if name.hasPrefix(".") { continue }
            guard let contents = try? fileSystem.readRegularFile(atPath: path, maximumSize: configuration.maximumFileSize) else { continue }
            if case .data(let data) = contents, let decoded = try? JSONDecoder().decode([RenewalStateRecord].self, from: data) {
                records += decoded
            }
            files.append(path)
        }
        return (records, files)
    }

    /// The folder ``exportRenewalStates()`` reads.
    var renewalsFolderPath: String { renewalsFolder }
}
