import Foundation

/// The quarantine folder of ``JournalOrderStore``: where what could not be
/// read is kept, never deleted, for diagnosis.
struct Quarantine: Sendable {
    let path: String
    let fileSystem: any FileSystem
    let clock: any PurchaseClock
    let logHandler: any PurchaseLogHandler

    /// A fresh name: unique, sortable by time, short enough for NAME_MAX.
    func name(for original: String, suffix: String = "") -> String {
        let stamp = Int64((clock.now.timeIntervalSince1970 * 1000).rounded(.down))
        let random = UUID().uuidString.prefix(8).lowercased()
        let kept = original.utf8.count <= 120 ? original : String(String.UnicodeScalarView(original.unicodeScalars.prefix(40)))
        return "\(stamp)-\(random)-journal-\(kept)\(suffix)"
    }

    /// Copies `bytes` of the file `name`, from byte `offset`, to a file of their
    /// own, durably, and returns `damage` saying where they went.
    func keep(_ bytes: Data, from fileName: String, offset: Int, damage: PurchaseKitError) -> PurchaseKitError {
        let target = name(for: fileName, suffix: "-at-\(offset)")
        var problem = damage
        do throws(FileSystemError) {
            try fileSystem.writeDurably(bytes, directory: path, fileName: target, mode: JournalFiles.fileMode)
            problem.message += " The bytes were moved to quarantine/\(target)."
            log(.warning, "Copied unreadable bytes of the order journal to the quarantine folder.",
                ["file": "journal/\(fileName)", "offset": String(offset), "bytes": String(bytes.count), "quarantinedAs": target])
        } catch {
            problem.message += " They could not be copied to the quarantine folder (\(error.description)) and stay where they are until the next snapshot."
            log(.error, "Could not copy unreadable bytes of the order journal to the quarantine folder.",
                ["file": "journal/\(fileName)", "error": error.description])
        }
        return problem
    }

    /// Moves a whole entry of `folder` to the quarantine folder and returns `damage` saying where it went.
    func move(_ entry: String, from folder: String, label: String, damage: PurchaseKitError) -> PurchaseKitError {
        let target = name(for: entry)
        var problem = damage
        do throws(FileSystemError) {
            try fileSystem.moveDurably(from: folder, to: path, fileName: entry, newName: target)
            problem.message += " It was moved to quarantine/\(target)."
            log(.warning, "Moved an entry that is not part of the order journal to the quarantine folder.",
                ["file": label, "quarantinedAs": target])
        } catch {
            problem.message += " It could not be moved to the quarantine folder (\(error.description))."
            log(.error, "Could not move an entry to the quarantine folder.", ["file": label, "error": error.description])
        }
        return problem
    }

    private func log(_ level: PurchaseLogLevel, _ message: String, _ metadata: [String: String]) {
        guard level >= logHandler.minimumLevel else { return }
        logHandler.log(LogRecord(level: level, message: message, metadata: LogRedaction.redact(metadata), date: clock.now))
    }
}
