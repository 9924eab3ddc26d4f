import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FileOrderStore {
    /// Reads both folders once and builds the index. Never fails because of a
    /// damaged file (that is a problem for the report); only when a folder
    /// cannot be listed, in which case the next call tries again.
    func loadIfNeeded() throws(PurchaseKitError) {
        guard !isLoaded else { return }
        var listings: [(FileOrderIndex.Place, [String])] = []
        for place in [FileOrderIndex.Place.open, .archive] {
            do throws(FileSystemError) {
                listings.append((place, try fileSystem.contentsOfDirectory(atPath: path(of: place)).sorted()))
            } catch {
                throw PurchaseKitError.readFailed(error, "The '\(place.rawValue)' folder of the order store could not be listed")
            }
        }
        index = FileOrderIndex()
        var problems: [PurchaseKitError] = []
        var changed: Set<FileOrderIndex.Place> = []
        // Open orders first: when an order is in both folders (a re-open
        // interrupted before the archived copy was deleted) the open one is newer.
        for (place, names) in listings {
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
        problems += pruneExpired().problems
        unreportedProblems += problems
    }

    /// Loads one file into the index, or deals with it. Returns the problem to report, if any.
    private func loadFile(named name: String, in place: FileOrderIndex.Place,
                          changed: inout Set<FileOrderIndex.Place>) -> PurchaseKitError? {
        let folder = path(of: place)
        let label = "\(place.rawValue)/\(name)"
        if FileNameCoding.isTemporary(name) {
            // Left by a crash in the middle of a write: the old file, if any, is intact.
            do throws(FileSystemError) {
                try fileSystem.removeFile(atPath: folder + "/" + name)
                changed.insert(place)
                log(.notice, "Removed a temporary file left by an interrupted write.", ["file": label])
                return nil
            } catch {
                return .writeFailed(error, "The leftover temporary file '\(label)' could not be deleted", orderID: nil,
                                    advice: "It is harmless and is deleted again at the next launch.")
            }
        }
        if name.hasPrefix(".") { return nil }  // Hidden files are not ours (such as Finder's .DS_Store).
        let data: Data
        do throws(FileSystemError) {
            data = try fileSystem.readFile(atPath: folder + "/" + name)
        } catch {
            log(.error, "Could not read an order file; it was left in place.", ["file": label, "error": error.description])
            return .readFailed(error, "The order file '\(label)' could not be read")
        }
        let order: Order
        switch validate(data, fileName: name, label: label) {
        case .success(let valid): order = valid
        case .failure(let damage):
            changed.insert(place)
            return quarantine(name, in: place, damage: damage)
        }
        if let existing = index.entry(for: order.id) {
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

    /// Moves a file that cannot be used to the quarantine folder, logs it and
    /// returns the typed error to report. The file is kept, never deleted.
    func quarantine(_ name: String, in place: FileOrderIndex.Place, damage: PurchaseKitError) -> PurchaseKitError {
        let label = "\(place.rawValue)/\(name)"
        let stamp = Int64((configuration.clock.now.timeIntervalSince1970 * 1000).rounded(.down))
        let random = UUID().uuidString.prefix(8).lowercased()
        // Unique, sortable by time, and short enough for NAME_MAX whatever the original name.
        let kept = name.utf8.count <= 160 ? name : String(String.UnicodeScalarView(name.unicodeScalars.prefix(40)))
        let target = "\(stamp)-\(random)-\(place.rawValue)-\(kept)"
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
        if let id = index.orderID(forFileName: name), index.entry(for: id)?.place == place { index.remove(id: id) }
        return problem
    }

    /// Reads an archived order from its file; quarantines it if it is damaged.
    func readArchived(id: String, entry: FileOrderIndex.Entry) throws(PurchaseKitError) -> Order? {
        let label = "\(entry.place.rawValue)/\(entry.fileName)"
        let data: Data
        do throws(FileSystemError) {
            data = try fileSystem.readFile(atPath: path(of: entry.place) + "/" + entry.fileName)
        } catch {
            if error.errorNumber == ENOENT {
                index.remove(id: id)
                return nil
            }
            throw PurchaseKitError.readFailed(error, "The order file '\(label)' could not be read", orderID: id)
        }
        switch validate(data, fileName: entry.fileName, label: label) {
        case .success(let order):
            return order
        case .failure(let damage):
            throw quarantine(entry.fileName, in: entry.place, damage: damage)
        }
    }

    /// Deletes archived orders whose last change is older than the retention.
    ///
    /// - Returns: How many orders were deleted.
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed`` when a file cannot be deleted;
    ///   the others are still deleted.
    @discardableResult
    public func pruneArchive() throws(PurchaseKitError) -> Int {
        try loadIfNeeded()
        let result = pruneExpired()
        if let first = result.problems.first { throw first }
        return result.removed
    }

    private func pruneExpired() -> (removed: Int, problems: [PurchaseKitError]) {
        let cutoff = configuration.clock.now.addingTimeInterval(-configuration.archiveRetention)
        var removed = 0
        var problems: [PurchaseKitError] = []
        for (id, entry) in index.archivedEntries where entry.updatedAt < cutoff {
            do throws(FileSystemError) {
                try fileSystem.removeFile(atPath: path(of: .archive) + "/" + entry.fileName)
                index.remove(id: id)
                removed += 1
            } catch {
                problems.append(.writeFailed(error, "The expired archived order '\(id)' could not be deleted", orderID: id,
                                             advice: "It stays archived and is deleted at the next pruning."))
            }
        }
        guard removed > 0 else { return (0, problems) }
        do throws(FileSystemError) {
            try fileSystem.synchronizeDirectory(atPath: path(of: .archive))
        } catch {
            problems.append(.writeFailed(error, "Pruning the archive may not survive a power loss", orderID: nil,
                                         advice: "Nothing was lost; expired orders are deleted again at the next pruning."))
        }
        log(.info, "Pruned expired orders from the archive.", ["count": String(removed)])
        return (removed, problems)
    }

    /// Sends a line to the configured handler, stamped by the configured clock.
    func log(_ level: LogLevel, _ message: String, _ metadata: [String: String]) {
        let handler = configuration.logHandler
        guard level >= handler.minimumLevel else { return }
        handler.log(LogRecord(level: level, message: message, metadata: LogRedaction.redact(metadata),
                              date: configuration.clock.now))
    }
}
