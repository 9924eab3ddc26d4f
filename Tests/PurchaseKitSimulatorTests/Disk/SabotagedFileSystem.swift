import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// The disk with one kind of flush silently skipped: a store that believes it
/// flushed but did not. `skipped` names the flush: `.synchronize` (every file
/// flush), `.synchronizeData` (the data flush alone), `.synchronizeDirectory`,
/// or `.read` (the flush of a file read back at launch).
struct SabotagedFileSystem: FileSystem {
    let disk: SimulatedDisk
    let skipped: FileSystemError.Operation

    func makeDirectory(atPath path: String, mode: UInt16) throws(FileSystemError) -> Bool {
        try disk.makeDirectory(atPath: path, mode: mode)
    }
    func setPermissions(atPath path: String, mode: UInt16) throws(FileSystemError) {
        try disk.setPermissions(atPath: path, mode: mode)
    }
    func createFile(atPath path: String, mode: UInt16) throws(FileSystemError) -> Int32 {
        try disk.createFile(atPath: path, mode: mode)
    }
    func write(_ data: Data, to descriptor: Int32, path: String) throws(FileSystemError) {
        try disk.write(data, to: descriptor, path: path)
    }
    func synchronize(_ descriptor: Int32, path: String) throws(FileSystemError) {
        if skipped != .synchronize { try disk.synchronize(descriptor, path: path) }
    }
    func synchronizeData(_ descriptor: Int32, path: String) throws(FileSystemError) {
        if skipped != .synchronize, skipped != .synchronizeData { try disk.synchronizeData(descriptor, path: path) }
    }
    func preallocate(_ descriptor: Int32, length: Int, path: String) throws(FileSystemError) {
        try disk.preallocate(descriptor, length: length, path: path)
    }
    /// Skipped with `.synchronize`, or alone with `.read` (the flush of a file read back at launch).
    func synchronizeFile(atPath path: String) throws(FileSystemError) {
        if skipped != .synchronize, skipped != .read { try disk.synchronizeFile(atPath: path) }
    }
    func close(_ descriptor: Int32, path: String) throws(FileSystemError) {
        try disk.close(descriptor, path: path)
    }
    func rename(_ source: String, to destination: String) throws(FileSystemError) {
        try disk.rename(source, to: destination)
    }
    func removeFile(atPath path: String) throws(FileSystemError) -> Bool {
        try disk.removeFile(atPath: path)
    }
    func synchronizeDirectory(atPath path: String) throws(FileSystemError) {
        if skipped != .synchronizeDirectory { try disk.synchronizeDirectory(atPath: path) }
    }
    func readRegularFile(atPath path: String, maximumSize: Int) throws(FileSystemError) -> FileContents {
        try disk.readRegularFile(atPath: path, maximumSize: maximumSize)
    }
    func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] {
        try disk.contentsOfDirectory(atPath: path)
    }
}
