import Foundation

/// The names of ``JournalOrderStore``'s files in its `journal` folder.
///
/// ```
/// snapshot-0000000000000007   every order as of the start of journal 7
/// log-0000000000000007        what happened since, in order
/// log-0000000000000008        (a launch starts a new journal file)
/// ```
///
/// Generations are 16 hexadecimal digits, so names sort in generation order.
/// A launch reads the snapshot with the highest generation and the journals
/// from that generation on; older files are what a snapshot made obsolete and
/// are deleted.
enum JournalFiles {
    static let folderName = "journal"
    static let quarantineFolderName = "quarantine"
    static let snapshotPrefix = "snapshot-"
    static let journalPrefix = "log-"
    static let directoryMode: UInt16 = 0o700
    static let fileMode: UInt16 = 0o600

    /// What a name in the journal folder is.
    enum Name: Equatable {
        case snapshot(UInt64)
        case journal(UInt64)
        case temporary
        /// Hidden files that are not ours, such as Finder's `.DS_Store`: left alone.
        case hidden
        case foreign
    }

    static func snapshotName(_ generation: UInt64) -> String { snapshotPrefix + hex(generation) }

    static func journalName(_ generation: UInt64) -> String { journalPrefix + hex(generation) }

    static func classify(_ name: String) -> Name {
        if FileNameCoding.isTemporary(name) { return .temporary }
        if name.hasPrefix(".") { return .hidden }
        if let generation = generation(name, prefix: snapshotPrefix) { return .snapshot(generation) }
        if let generation = generation(name, prefix: journalPrefix) { return .journal(generation) }
        return .foreign
    }

    private static func generation(_ name: String, prefix: String) -> UInt64? {
        guard name.hasPrefix(prefix) else { return nil }
        let digits = name.dropFirst(prefix.count)
        guard digits.utf8.count == 16, let value = UInt64(digits, radix: 16), hex(value) == digits else { return nil }
        return value
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
