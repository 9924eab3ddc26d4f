import Foundation
import PurchaseKit

/// Each call is one counted call of ``SimulatedDisk`` with the errors a POSIX
/// file system would report (`ENOENT`, `EEXIST`, `ENOTDIR`, `EISDIR`, `EBADF`).
extension SimulatedDisk: FileSystem {
    package func makeDirectory(atPath path: String, mode: UInt16) throws(FileSystemError) -> Bool {
        try perform(.makeDirectory, path) { tree throws(DiskTree.Failure) in try tree.makeDirectory(at: path, mode: mode) }
    }

    package func setPermissions(atPath path: String, mode: UInt16) throws(FileSystemError) {
        try perform(.setPermissions, path) { tree throws(DiskTree.Failure) in try tree.setMode(at: path, mode) }
    }

    package func createFile(atPath path: String, mode: UInt16) throws(FileSystemError) -> Int32 {
        try perform(.create, path) { tree throws(DiskTree.Failure) in try tree.createFile(at: path, mode: mode) }
    }

    package func write(_ data: Data, to descriptor: Int32, path: String) throws(FileSystemError) {
        try perform(.write, path) { tree throws(DiskTree.Failure) in try tree.write(data, to: descriptor) }
    }

    package func synchronize(_ descriptor: Int32, path: String) throws(FileSystemError) {
        try perform(.synchronize, path) { tree throws(DiskTree.Failure) in
            if !ignoresFlushes { try tree.synchronize(descriptor) }
        }
    }

    /// The simulated disk keeps no metadata beyond directory entries, so this is `synchronize`.
    package func synchronizeData(_ descriptor: Int32, path: String) throws(FileSystemError) {
        try perform(.synchronizeData, path) { tree throws(DiskTree.Failure) in try tree.synchronize(descriptor) }
    }

    package func synchronizeFile(atPath path: String) throws(FileSystemError) {
        try perform(.synchronize, path) { tree throws(DiskTree.Failure) in try tree.synchronizeFile(at: path) }
    }

    package func preallocate(_ descriptor: Int32, length: Int, path: String) throws(FileSystemError) {
        try perform(.preallocate, path) { tree throws(DiskTree.Failure) in try tree.preallocate(descriptor, length: length) }
    }

    package func close(_ descriptor: Int32, path: String) throws(FileSystemError) {
        try perform(.close, path) { tree throws(DiskTree.Failure) in try tree.close(descriptor) }
    }

    package func rename(_ source: String, to destination: String) throws(FileSystemError) {
        try perform(.rename, destination) { tree throws(DiskTree.Failure) in try tree.rename(source, to: destination) }
    }

    @discardableResult
    package func removeFile(atPath path: String) throws(FileSystemError) -> Bool {
        try perform(.remove, path) { tree throws(DiskTree.Failure) in try tree.unlink(path) }
    }

    package func synchronizeDirectory(atPath path: String) throws(FileSystemError) {
        try perform(.synchronizeDirectory, path) { tree throws(DiskTree.Failure) in
            if !ignoresFlushes { try tree.synchronizeDirectory(at: path) }
        }
    }

    /// The whole content of a file, for tests that look at the disk directly.
    package func readFile(atPath path: String) throws(FileSystemError) -> Data {
        try perform(.read, path) { tree throws(DiskTree.Failure) in try tree.read(at: path) }
    }

    /// The simulated disk holds only files and directories: a directory is
    /// unusable, a file above the limit too large; nothing else can be there.
    package func readRegularFile(atPath path: String, maximumSize: Int) throws(FileSystemError) -> FileContents {
        try perform(.read, path) { tree throws(DiskTree.Failure) in
            let data: Data
            do throws(DiskTree.Failure) {
                data = try tree.read(at: path)
            } catch {
                if error.errorNumber == EISDIR { return .unusable(.directory) }
                throw error
            }
            guard data.count <= maximumSize else { return .unusable(.tooLarge(size: Int64(data.count), limit: maximumSize)) }
            return .data(data)
        }
    }

    package func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] {
        try perform(.list, path) { tree throws(DiskTree.Failure) in try tree.list(at: path) }
    }
}
