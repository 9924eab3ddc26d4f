import Foundation
import PurchaseKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Kills the demo with SIGKILL just before its N-th write to the state
/// folder (an order-store file call or a save of the store's or the
/// server's state), when `PURCHASEKIT_DEMO_DIE_AT_WRITE=N` is set: the tests
/// use it to kill every command at every point, as a user's kill or a crash
/// would, without waiting on a timer.
enum DemoKillSwitch {
    static let variable = "PURCHASEKIT_DEMO_DIE_AT_WRITE"
    private static let target: Int? = ProcessInfo.processInfo.environment[variable].flatMap(Int.init)
    private static let writes = Locked(0)

    /// Whether the switch is set for this run.
    static var isArmed: Bool { target != nil }

    /// Counts a write and dies before it if it is the chosen one.
    static func beforeWrite() {
        guard let target else { return }
        let count = writes.withLock { $0 += 1; return $0 }
        if count == target { kill(getpid(), SIGKILL) }
    }
}

/// The real file system, counting every call that changes the disk.
struct DyingFileSystem: FileSystem {
    let base = POSIXFileSystem()

    func makeDirectory(atPath path: String, mode: UInt16) throws(FileSystemError) -> Bool {
        DemoKillSwitch.beforeWrite()
        return try base.makeDirectory(atPath: path, mode: mode)
    }
    func setPermissions(atPath path: String, mode: UInt16) throws(FileSystemError) {
        try base.setPermissions(atPath: path, mode: mode)
    }
    func createFile(atPath path: String, mode: UInt16) throws(FileSystemError) -> Int32 {
        DemoKillSwitch.beforeWrite()
        return try base.createFile(atPath: path, mode: mode)
    }
    func write(_ data: Data, to descriptor: Int32, path: String) throws(FileSystemError) {
        DemoKillSwitch.beforeWrite()
        try base.write(data, to: descriptor, path: path)
    }
    func synchronize(_ descriptor: Int32, path: String) throws(FileSystemError) {
        DemoKillSwitch.beforeWrite()
        try base.synchronize(descriptor, path: path)
    }
    func synchronizeData(_ descriptor: Int32, path: String) throws(FileSystemError) {
        DemoKillSwitch.beforeWrite()
        try base.synchronizeData(descriptor, path: path)
    }
    func preallocate(_ descriptor: Int32, length: Int, path: String) throws(FileSystemError) {
        DemoKillSwitch.beforeWrite()
        try base.preallocate(descriptor, length: length, path: path)
    }
    func synchronizeFile(atPath path: String) throws(FileSystemError) {
        DemoKillSwitch.beforeWrite()
        try base.synchronizeFile(atPath: path)
    }
    func close(_ descriptor: Int32, path: String) throws(FileSystemError) {
        try base.close(descriptor, path: path)
    }
    func rename(_ source: String, to destination: String) throws(FileSystemError) {
        DemoKillSwitch.beforeWrite()
        try base.rename(source, to: destination)
    }
    func removeFile(atPath path: String) throws(FileSystemError) -> Bool {
        DemoKillSwitch.beforeWrite()
        return try base.removeFile(atPath: path)
    }
    func synchronizeDirectory(atPath path: String) throws(FileSystemError) {
        DemoKillSwitch.beforeWrite()
        try base.synchronizeDirectory(atPath: path)
    }
    func readRegularFile(atPath path: String, maximumSize: Int) throws(FileSystemError) -> FileContents {
        try base.readRegularFile(atPath: path, maximumSize: maximumSize)
    }
    func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] {
        try base.contentsOfDirectory(atPath: path)
    }
}
