import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The few file-system calls ``FileOrderStore`` and ``JournalOrderStore`` make, behind a seam so that
/// tests can make any one of them fail (a full disk, a failing `fsync`) and
/// check that the error is reported and the previous data is intact.
///
/// Paths are absolute. Every failure is a ``FileSystemError`` that keeps the
/// operation and the `errno` value.
package protocol FileSystem: Sendable {
    /// Creates a directory with `mode`, and any missing parents. Returns whether it was created;
    /// an existing directory is not an error.
    func makeDirectory(atPath path: String, mode: UInt16) throws(FileSystemError) -> Bool
    /// Sets the permission bits of a file or directory.
    func setPermissions(atPath path: String, mode: UInt16) throws(FileSystemError)
    /// Creates a new file for writing with `mode`; fails if it exists.
    func createFile(atPath path: String, mode: UInt16) throws(FileSystemError) -> Int32
    /// Writes all of `data` to an open file.
    func write(_ data: Data, to descriptor: Int32, path: String) throws(FileSystemError)
    /// Flushes an open file to stable storage.
    func synchronize(_ descriptor: Int32, path: String) throws(FileSystemError)
    /// Flushes an open file's data to stable storage, with only the metadata
    /// needed to read it back (its size), as `fdatasync` does: the flush of an
    /// append-only journal.
    func synchronizeData(_ descriptor: Int32, path: String) throws(FileSystemError)
    /// Reserves the first `length` bytes of an open file, filling what is past
    /// its end with zeros, without moving its offset: writes into reserved
    /// space change no file size or block map, so their flushes write no
    /// metadata. A file system that cannot reserve space may do nothing.
    func preallocate(_ descriptor: Int32, length: Int, path: String) throws(FileSystemError)
    /// Flushes a file that is not open here (one a previous process wrote) to stable storage.
    func synchronizeFile(atPath path: String) throws(FileSystemError)
    /// Closes an open file. Some file systems report deferred write errors here.
    func close(_ descriptor: Int32, path: String) throws(FileSystemError)
    /// Atomically replaces `destination` with `source`; both in one file system.
    func rename(_ source: String, to destination: String) throws(FileSystemError)
    /// Deletes a file. Returns false when there was none.
    @discardableResult
    func removeFile(atPath path: String) throws(FileSystemError) -> Bool
    /// Flushes a directory's entries (creations, renames, deletions) to stable storage.
    func synchronizeDirectory(atPath path: String) throws(FileSystemError)
    /// The content of a regular file of at most `maximumSize` bytes, or why it was not read.
    ///
    /// Never follows a symbolic link, never blocks on a FIFO, never opens a device,
    /// socket or directory, and never reads more than `maximumSize + 1` bytes, so
    /// that nothing placed in a folder of the store can hang it or exhaust memory.
    /// A missing file or a failing call is a ``FileSystemError``.
    func readRegularFile(atPath path: String, maximumSize: Int) throws(FileSystemError) -> FileContents
    /// The names in a directory, without `.` and `..`.
    func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String]
}

/// What ``FileSystem/readRegularFile(atPath:maximumSize:)`` found.
package enum FileContents: Equatable, Sendable {
    /// The whole content of a regular file within the size limit.
    case data(Data)
    /// Something that must not be read as a document.
    case unusable(UnusableFile)
}

/// Why an entry in a folder of the store was not read.
package enum UnusableFile: Equatable, Sendable, CustomStringConvertible {
    case symbolicLink
    case fifo
    case socket
    case device
    case directory
    /// A kind of entry the platform reports but the store has no name for.
    case otherType
    /// A regular file larger than the limit (its size as far as it was known).
    case tooLarge(size: Int64, limit: Int)

    /// What it is, for messages: "a FIFO", "a file of 2097152 bytes, above the limit of 1048576".
    package var description: String {
        switch self {
        case .symbolicLink: "a symbolic link (never followed)"
        case .fifo: "a FIFO (named pipe)"
        case .socket: "a socket"
        case .device: "a device"
        case .directory: "a directory"
        case .otherType: "not a regular file"
        case .tooLarge(let size, let limit): "a file of \(size) bytes or more, above the limit of \(limit) bytes"
        }
    }

    /// The kind of entry a `stat` mode describes; nil for a regular file.
    static func kind(ofMode mode: mode_t) -> UnusableFile? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFLNK: .symbolicLink
        case S_IFIFO: .fifo
        case S_IFSOCK: .socket
        case S_IFCHR, S_IFBLK: .device
        case S_IFDIR: .directory
        default: .otherType
        }
    }
}

/// One failed file-system call: which call, on what, and the `errno` it set.
package struct FileSystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call that failed.
    package enum Operation: String, Sendable, Hashable, CaseIterable {
        case makeDirectory = "mkdir"
        case setPermissions = "chmod"
        case create = "open"
        case write
        case synchronize = "fsync"
        case synchronizeData = "fdatasync"
        case preallocate = "fallocate"
        case close
        case rename
        case remove = "unlink"
        case synchronizeDirectory = "fsync of the directory"
        case read
        case list = "reading the directory"
    }

    package var operation: Operation
    /// The `errno` value.
    package var errorNumber: Int32
    /// The path the call was about.
    package var path: String

    /// Such as `fsync failed: Input/output error (5)`.
    package var description: String {
        "\(operation.rawValue) failed: \(Self.explain(errorNumber)) (\(errorNumber))"
    }

    /// The system's text for an `errno` value.
    static func explain(_ errorNumber: Int32) -> String {
        guard let text = strerror(errorNumber) else { return "error" }
        return String(cString: text)
    }

    /// The error in a form callers can switch on: `POSIXError` when the code is
    /// one Foundation knows, this error otherwise.
    var underlying: any Error & Sendable {
        if let code = POSIXErrorCode(rawValue: errorNumber) { return POSIXError(code) }
        return self
    }
}

extension PurchaseKitError {
    /// A failed write of an order, naming the call and `errno` that failed.
    static func writeFailed(_ error: FileSystemError, _ what: String, orderID: String?, advice: String? = nil) -> PurchaseKitError {
        PurchaseKitError(
            .persistenceWriteFailed, "\(what): \(error.description).",
            advice: advice ?? "Nothing was changed on disk; the previous version is intact. Check free space and storage health, then try again.",
            underlying: error.underlying, orderID: orderID)
    }

    /// A failed read of the order store, naming the call and `errno` that failed.
    static func readFailed(_ error: FileSystemError, _ what: String, orderID: String? = nil) -> PurchaseKitError {
        PurchaseKitError(
            .persistenceReadFailed, "\(what): \(error.description).",
            advice: "The file was left in place. Check the storage and the permissions of the store's directory, then load again.",
            underlying: error.underlying, orderID: orderID)
    }

    /// An entry of the store that must not be read as a document: `label` is
    /// its folder and name, `kind` what it turned out to be.
    static func unusableEntry(_ label: String, _ kind: UnusableFile) -> PurchaseKitError {
        PurchaseKitError(
            .persistenceUnusableFile, "The entry '\(label)' is \(kind), not an order document; it was not read.",
            advice: "Something other than PurchaseKit put it in the store's folder. The other orders are unaffected; "
                + "remove it, or raise the size limit if it is a genuine order that outgrew it.")
    }
}
