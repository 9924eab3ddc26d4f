import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FileOrderStore {
    /// Reads the folders once and builds the index: the ledger first, then the
    /// open and archived orders, whose files win over a compact record of the
    /// same order (compaction deletes a file only once its record is durable, so
    /// the file is never older). Never fails because of a damaged or unusable
    /// entry (that is a problem for the report); only when a folder cannot be
    /// listed, in which case the next call tries again.
    func loadIfNeeded() throws(PurchaseKitError) {
        guard !isLoaded else { return }
        var listings: [(FileOrderIndex.Place, [String])] = []
        for place in [FileOrderIndex.Place.ledger, .open, .archive] {
            do throws(FileSystemError) {
                listings.append((place, try fileSystem.contentsOfDirectory(atPath: path(of: place)).sorted()))
            } catch {
                throw PurchaseKitError.readFailed(error, "The '\(place.rawValue)' folder of the order store could not be listed")
            }
        }
        index = FileOrderIndex()
        ledger = FileOrderLedger()
        unreadOrderFiles = []
        var problems: [PurchaseKitError] = []
        var changed: Set<FileOrderIndex.Place> = []
        for (place, names) in listings {
            if place == .ledger {
                loadLedger(names, problems: &problems, changed: &changed)
                continue
            }
            // Open orders before archived ones: when an order is in both folders (a
            // re-open interrupted before the archived copy was deleted) the open one is newer.
            for name in names {
                if let problem = loadFile(named: name, in: place, changed: &changed) { problems.append(problem) }
            }
        }
        for place in changed.sorted(by: { $0.rawValue < $1.rawValue }) {
            do throws(FileSystemError) {
                try fileSystem.synchronizeDirectory(atPath: path(of: place))
                try fileSystem.synchronizeDirectory(atPath: quarantinePath)
            } catch {
                problems.append(.writeFailed(error, "Cleaning up the '\(place.rawValue)' folder may not survive a power loss",
                                             orderID: nil, advice: "Nothing was lost; the clean-up is repeated at the next launch."))
            }
        }
        isLoaded = true
        problems += compactExpired().problems
        unreportedProblems += problems
    }

    /// Deletes a temporary file left by a crash in the middle of a write (the
    /// old file, if any, is intact). Returns the problem to report, if any.
    func removeLeftover(_ name: String, in place: FileOrderIndex.Place, changed: inout Set<FileOrderIndex.Place>) -> PurchaseKitError? {
        let label = "\(place.rawValue)/\(name)"
        do throws(FileSystemError) {
            try fileSystem.removeFile(atPath: path(of: place) + "/" + name)
            changed.insert(place)
            log(.notice, "Removed a temporary file left by an interrupted write.", ["file": label])
            return nil
        } catch {
            return .writeFailed(error, "The leftover temporary file '\(label)' could not be deleted", orderID: nil,
                                advice: "It is harmless and is deleted again at the next launch.")
        }
    }

    /// Reads a regular file of the store within `limit` bytes (the configured
    /// maximum by default), without following links or blocking.
    func readEntry(_ name: String, in place: FileOrderIndex.Place, limit: Int? = nil) throws(FileSystemError) -> FileContents {
        try fileSystem.readRegularFile(atPath: path(of: place) + "/" + name,
                                       maximumSize: limit ?? configuration.maximumFileSize)
    }

    /// Loads one file into the index, or deals with it. Returns the problem to report, if any.
    private func loadFile(named name: String, in place: FileOrderIndex.Place,
                          changed: inout Set<FileOrderIndex.Place>) -> PurchaseKitError? {
        let folder = path(of: place)
        let label = "\(place.rawValue)/\(name)"
        if FileNameCoding.isTemporary(name) { return removeLeftover(name, in: place, changed: &changed) }
        if name.hasPrefix(".") { return nil }  // Hidden files are not ours (such as Finder's .DS_Store).
        let data: Data
        do throws(FileSystemError) {
            switch try readEntry(name, in: place) {
            case .data(let contents):
                data = contents
            case .unusable(let kind):
                changed.insert(place)
                return quarantine(name, in: place, damage: .unusableEntry(label, kind))
            }
        } catch {
            log(.error, "Could not read an order file; it was left in place.", ["file": label, "error": error.description])
            unreadOrderFiles.insert(label)
            return .readFailed(error, "The order file '\(label)' could not be read")
        }
        let order: Order
        switch validate(data, fileName: name, label: label) {
        case .success(let valid): order = valid
        case .failure(let damage):
            changed.insert(place)
            return quarantine(name, in: place, damage: damage)
        }
        if let existing = index.entry(for: order.id), existing.place != .ledger {
            if existing.place == .open, place == .archive {
                do throws(FileSystemError) {
                    try fileSystem.removeFile(atPath: folder + "/" + name)
                    changed.insert(place)
                    log(.notice, "Removed an archived copy of an order that was re-opened.", ["file": label, "orderID": order.id])
                    return nil
                } catch {
                    return .writeFailed(error, "The stale archived copy '\(label)' could not be deleted", orderID: order.id,
                                        advice: "The open order is used; the copy is deleted again at the next launch.")
                }
            }
            // Two files of one order in one folder: keep the newer, set the other aside.
            let damage = PurchaseKitError(
                .persistenceCorrupt, "The order file '\(label)' holds the same order as another file.",
                advice: "The newer version is used; the other file was moved to the quarantine folder.", orderID: order.id)
            changed.insert(place)
            guard order.updatedAt > existing.updatedAt else { return quarantine(name, in: place, damage: damage) }
            let problem = quarantine(existing.fileName, in: place, damage: damage)
            index.insert(order, fileName: name, place: place)
            return problem
        }
        index.insert(order, fileName: name, place: place)
        return nil
    }

    /// Decodes an order file and checks that it belongs under its name.
    func validate(_ data: Data, fileName: String, label: String) -> Result<Order, PurchaseKitError> {
        let order: Order
        do throws(PurchaseKitError) {
            order = try OrderCoding.decode(data)
        } catch {
            return .failure(error)
        }
        guard FileNameCoding.name(fileName, fits: order.id) else {
            return .failure(PurchaseKitError(
                .persistenceCorrupt, "The order file '\(label)' holds an order whose id does not match its file name.",
                advice: "It was copied or renamed by something other than PurchaseKit; it was moved to the quarantine folder."))
        }
        return .success(order)
    }

    /// A fresh name in the quarantine folder for an entry of `place`: unique,
    /// sortable by time, and short enough for NAME_MAX whatever the original name.
    func quarantineName(for name: String, in place: FileOrderIndex.Place) -> String {
        let stamp = Int64((configuration.clock.now.timeIntervalSince1970 * 1000).rounded(.down))
        let random = UUID().uuidString.prefix(8).lowercased()
        let kept = name.utf8.count <= 160 ? name : String(String.UnicodeScalarView(name.unicodeScalars.prefix(40)))
        return "\(stamp)-\(random)-\(place.rawValue)-\(kept)"
    }

    /// Moves a file that cannot be used to the quarantine folder, logs it and
    /// returns the typed error to report. The file is kept, never deleted.
    func quarantine(_ name: String, in place: FileOrderIndex.Place, damage: PurchaseKitError) -> PurchaseKitError {
        let label = "\(place.rawValue)/\(name)"
        let target = quarantineName(for: name, in: place)
        var problem = damage
        do throws(FileSystemError) {
            try fileSystem.rename(path(of: place) + "/" + name, to: quarantinePath + "/" + target)
            problem.message = "The order file '\(label)' could not be used and was moved to quarantine/\(target): \(damage.message)"
            log(.warning, "Moved an unusable order file to the quarantine folder.",
                ["file": label, "quarantinedAs": target, "code": damage.code.rawValue])
        } catch {
            problem.message = "The order file '\(label)' could not be used and could not be moved to quarantine "
                + "(\(error.description)): \(damage.message)"
            log(.error, "Could not move an unusable order file to the quarantine folder.",
                ["file": label, "code": damage.code.rawValue, "error": error.description])
        }
        if problem.underlying == nil { problem.underlying = damage }
        if let id = index.orderID(forFileName: name), index.entry(for: id)?.place == place {
            index.remove(id: id)
            // The compact record of the order, if it has one, is what is left of it.
            if let record = ledger.records[id] { index.insert(record, fileName: "", place: .ledger) }
        }
        return problem
    }

    /// Reads an archived order from its file; quarantines it if it is damaged
    /// or unusable. A file gone missing leaves the order's compact record, if any.
    func readArchived(id: String, entry: FileOrderIndex.Entry) throws(PurchaseKitError) -> Order? {
        let label = "\(entry.place.rawValue)/\(entry.fileName)"
        let contents: FileContents
        do throws(FileSystemError) {
            contents = try readEntry(entry.fileName, in: entry.place)
        } catch {
            if error.errorNumber == ENOENT {
                index.remove(id: id)
                guard let record = ledger.records[id] else { return nil }
                index.insert(record, fileName: "", place: .ledger)
                return record
            }
            throw PurchaseKitError.readFailed(error, "The order file '\(label)' could not be read", orderID: id)
        }
        let data: Data
        switch contents {
        case .data(let bytes): data = bytes
        case .unusable(let kind): throw quarantine(entry.fileName, in: entry.place, damage: .unusableEntry(label, kind))
        }
        switch validate(data, fileName: entry.fileName, label: label) {
        case .success(let order):
            return order
        case .failure(let damage):
            throw quarantine(entry.fileName, in: entry.place, damage: damage)
        }
    }

    /// Sends a line to the configured handler, stamped by the configured clock.
    func log(_ level: PurchaseLogLevel, _ message: String, _ metadata: [String: String]) {
        let handler = configuration.logHandler
        guard level >= handler.minimumLevel else { return }
        handler.log(LogRecord(level: level, message: message, metadata: LogRedaction.redact(metadata),
                              date: configuration.clock.now))
    }
}
