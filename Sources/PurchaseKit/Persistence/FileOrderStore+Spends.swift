import Foundation

extension FileOrderStore {
    /// The largest spends file read, in bytes: a user's spends file grows by
    /// about 150 bytes a spend.
    static let maximumSpendsFileSize = 64 * 1024 * 1024

    private var spendsFolder: String { directory.path + "/spends" }

    /// Records a spend in the user's spends file (`<directory>/spends/`, one
    /// JSON file per user, named like an order file after the user id),
    /// rewritten whole and flushed for every new spend, like an order file. A
    /// spend id the user already has writes nothing and returns the stored spend.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed`` when the file cannot be
    ///   written; ``PurchaseKitError/Code/persistenceCorrupt`` when the user's spends file
    ///   cannot be read (nothing is written over it).
    public func recordSpend(_ spend: ConsumableSpend) async throws -> ConsumableSpend {
        var file = try readSpendsFile(of: spend.userID)
        if let stored = file.first(where: { $0.userID == spend.userID && $0.id == spend.id }) { return stored }
        file.append(spend)
        let data: Data
        do {
            data = try JSONEncoder().encode(file)
        } catch {
            throw PurchaseKitError(.persistenceWriteFailed, "A spend could not be encoded.",
                                   advice: "Report this; nothing was spent.", underlying: error)
        }
        let fileSystem = configuration.fileSystem
        try StoreFolders.prepare(root: directory.path, folders: [spendsFolder], fileSystem: fileSystem)
        do throws(FileSystemError) {
            try fileSystem.writeDurably(data, directory: spendsFolder, fileName: FileNameCoding.fileName(for: spend.userID),
                                        mode: Self.fileMode)
        } catch {
            throw PurchaseKitError.writeFailed(error, "A spend could not be saved", orderID: nil,
                                               advice: "Check free space and permissions, then spend again with the same spend id.")
        }
        return spend
    }

    /// Every spend of one user, oldest first.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceCorrupt`` when the user's spends file
    ///   cannot be read: a balance without its spends would be too high.
    public func spends(forUser userID: String) async throws -> [ConsumableSpend] {
        ConsumableSpend.chronological(try readSpendsFile(of: userID).filter { $0.userID == userID })
    }

    /// The spends in the file named after `userID`: the user's, and those of any
    /// other user whose long id hashes to the same name (kept when rewriting).
    private func readSpendsFile(of userID: String) throws(PurchaseKitError) -> [ConsumableSpend] {
        let path = spendsFolder + "/" + FileNameCoding.fileName(for: userID)
        let contents: FileContents
        do throws(FileSystemError) {
            contents = try configuration.fileSystem.readRegularFile(atPath: path, maximumSize: Self.maximumSpendsFileSize)
        } catch {
            if error.errorNumber == ENOENT { return [] }
            throw PurchaseKitError.readFailed(error, "The spends of a user could not be read")
        }
        guard case .data(let data) = contents, data.count <= Self.maximumSpendsFileSize else {
            throw PurchaseKitError(.persistenceCorrupt, "The spends file of a user is not a regular file of at most \(Self.maximumSpendsFileSize) bytes.",
                                   advice: "Nothing was read or written; move the file at \(path) aside only if you accept losing its spends.")
        }
        do {
            return try JSONDecoder().decode([ConsumableSpend].self, from: data)
        } catch {
            throw PurchaseKitError(.persistenceCorrupt, "The spends file of a user could not be decoded.",
                                   advice: "Nothing was written over it; the balance is not answered while its spends are unknown.",
                                   underlying: error)
        }
    }
}

extension FileOrderStore {
    /// Every spend in the spends folder, for ``JournalOrderStore``'s import, with
    /// the files read whole. A file that cannot be read is reported, left out
    /// of `files` so that it is not deleted, and named in `unread`.
    func exportSpends() -> (spends: [ConsumableSpend], files: [String], unread: Set<String>, problems: [PurchaseKitError]) {
        let fileSystem = configuration.fileSystem
        let names: [String]
        do throws(FileSystemError) {
            names = try fileSystem.contentsOfDirectory(atPath: spendsFolder)
        } catch {
            if error.errorNumber == ENOENT { return ([], [], [], []) }
            return ([], [], [Self.everySpendsFile], [PurchaseKitError.readFailed(error, "The spends folder of the FileOrderStore could not be listed")])
        }
        var spends: [ConsumableSpend] = []
        var files: [String] = []
        var unread: Set<String> = []
        var problems: [PurchaseKitError] = []
        for name in names.sorted() {
            let path = spendsFolder + "/" + name
            // A rewrite cut short left it; the file it was to replace holds the spends.
            if FileNameCoding.isTemporary(name) {
                files.append(path)
                continue
            }
            if name.hasPrefix(".") { continue }
            do {
                guard case .data(let data) = try fileSystem.readRegularFile(atPath: path, maximumSize: Self.maximumSpendsFileSize) else {
                    throw PurchaseKitError(.persistenceUnusableFile, "not a regular file", advice: "")
                }
                spends += try JSONDecoder().decode([ConsumableSpend].self, from: data)
                files.append(path)
            } catch {
                unread.insert(name)
                problems.append(PurchaseKitError(
                    .persistenceCorrupt, "The spends file '\(name)' of the FileOrderStore could not be imported; it was left in place.",
                    advice: "The spends and balances of its users are not answered until it can be read; the import tries again at the next launch.",
                    underlying: error))
            }
        }
        return (spends, files, unread, problems)
    }

    /// In `unread`: the spends folder itself could not be listed, so no user's spends are known.
    static let everySpendsFile = "*"

    /// The folder ``exportSpends()`` reads.
    var spendsFolderPath: String { spendsFolder }
}
