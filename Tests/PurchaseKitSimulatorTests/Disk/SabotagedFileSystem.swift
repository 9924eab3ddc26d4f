import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// The disk with one kind of flush silently skipped: a store that believes it
/// flushed but did not. `skipped` names the flush: `.synchronize` (every file
/// flush), `.synchronizeData` (the data flush alone), `.synchronizeDirectory`,
/// or `.read` (the flush of a file read back at launch); nil skips none.
/// With a `gate`, a data flush may also be held until the test lets it go
/// (see ``FlushGate``); with `writeBack`, one may fail as a lost write-back
/// does (see ``WriteBackFailure``); with `readFlushFails`, the flush of a
/// file read back at launch fails with `EIO`, flushing nothing.
struct SabotagedFileSystem: FileSystem {
    let disk: SimulatedDisk
    let skipped: FileSystemError.Operation?
    var gate: FlushGate?
    var writeBack: WriteBackFailure?
    var readFlushFails = false

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
        gate?.pass()
        if try writeBack?.flushIsLost(path, failing: true) == true { return }
        if skipped != .synchronize, skipped != .synchronizeData { try disk.synchronizeData(descriptor, path: path) }
    }
    func preallocate(_ descriptor: Int32, length: Int, path: String) throws(FileSystemError) {
        try disk.preallocate(descriptor, length: length, path: path)
    }
    /// Skipped with `.synchronize`, or alone with `.read` (the flush of a file read back at launch).
    func synchronizeFile(atPath path: String) throws(FileSystemError) {
        if readFlushFails { throw FileSystemError(.synchronize, errorNumber: EIO, path: path) }
        if try writeBack?.flushIsLost(path, failing: false) == true { return }
        if skipped != .synchronize, skipped != .read { try disk.synchronizeFile(atPath: path) }
    }
    func close(_ descriptor: Int32, path: String) throws(FileSystemError) {
        try disk.close(descriptor, path: path)
    }
    func rename(_ source: String, to destination: String) throws(FileSystemError) {
        if writeBack?.failsRenames == true { throw FileSystemError(.rename, errorNumber: EIO, path: source) }
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

/// Holds the first data flush made after ``arm()`` until ``release()``: a
/// test makes a call while another call's flush is in progress.
///
/// `@unchecked Sendable` is safe: its state is only touched under the lock,
/// and the semaphore is thread-safe.
final class FlushGate: @unchecked Sendable {
    private let lock = NSLock()
    private let released = DispatchSemaphore(value: 0)
    private var armed = false
    private var holding = false
    private var holdWaiter: CheckedContinuation<Void, Never>?

    func arm() { lock.withLock { armed = true } }

    /// Returns once a flush is held.
    func waitUntilHolding() async {
        await withCheckedContinuation { continuation in
            let already = lock.withLock { () -> Bool in
                if holding { return true }
                holdWaiter = continuation
                return false
            }
            if already { continuation.resume() }
        }
    }

    func release() { released.signal() }

    /// Called by the file system before each data flush, on the flushing
    /// thread (the store's own, never the cooperative pool's while held).
    func pass() {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>?? in
            guard armed else { return nil }
            armed = false
            holding = true
            defer { holdWaiter = nil }
            return .some(holdWaiter)
        }
        guard let waiter else { return }
        waiter?.resume()
        released.wait()
    }
}

/// A write-back that fails, as Linux reports one: the first data flush after
/// ``arm()`` throws `EIO`, and from then on every flush of that file returns
/// as if it had worked and writes nothing (the kernel reports the error once
/// and may drop the unwritten pages, which reads still see). What was not
/// flushed before the failure never reaches the disk. Arm it again for
/// another failure. With `failsRenames` on, every rename fails too (a
/// snapshot that cannot be put in place).
///
/// `@unchecked Sendable` is safe: its state is only touched under the lock.
final class WriteBackFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var armed = false
    private var lostPaths: Set<String> = []
    private var renamesFail = false

    func arm() { lock.withLock { armed = true } }

    var failsRenames: Bool {
        get { lock.withLock { renamesFail } }
        set { lock.withLock { renamesFail = newValue } }
    }

    /// Whether a flush of `path` is to be acknowledged without doing
    /// anything; throws for the flush that fails (a data flush, when armed).
    func flushIsLost(_ path: String, failing: Bool) throws(FileSystemError) -> Bool {
        let (fails, lost) = lock.withLock { () -> (Bool, Bool) in
            if failing, armed {
                armed = false
                lostPaths.insert(path)
                return (true, false)
            }
            return (false, lostPaths.contains(path))
        }
        if fails { throw FileSystemError(.synchronizeData, errorNumber: EIO, path: path) }
        return lost
    }
}
