import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A fresh directory per test, deleted when the test ends.
func makeTemporaryDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("PurchaseKitTests-\(UUID().uuidString)", isDirectory: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    // The store creates it; return a path that does not exist yet so its creation is tested too.
    return url.appendingPathComponent("store", isDirectory: true)
}

/// A representative order with a paid transaction.
func makeOrder(_ id: String, user: String = "user-1", transactionID: String? = nil,
               createdAt: Date = testEpoch,
               status: OrderStatus = .purchased) -> Order {
    var order = Order(id: id, productID: "com.example.coins.100", userID: user, status: status,
                      createdAt: createdAt, metadata: ["campaign": "spring"])
    if let transactionID {
        order.transaction = StoreTransaction(id: transactionID, productID: order.productID,
                                             purchaseDate: createdAt.addingTimeInterval(5),
                                             orderToken: id, receipt: Data("receipt-\(id)".utf8))
        order.paymentFinishedAt = createdAt.addingTimeInterval(5)
    }
    return order
}

/// The permission bits of a file or directory.
func permissions(ofPath path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int(info.st_mode & 0o777)
}

/// The names in a folder of the store, hidden ones included.
func names(in directory: URL, _ folder: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(folder).path)) ?? []).sorted()
}

/// A file system (the real one by default) with switchable faults and a count of every call, so
/// that tests can make one call fail with an errno and check what a save costs.
final class FaultyFileSystem: FileSystem {
    struct Fault {
        var operation: FileSystemError.Operation
        var errorNumber: Int32
        /// Fail only for paths containing this (nil: every path).
        var pathContains: String?
    }

    private let base: any FileSystem

    /// Passes every call on to `base` (the real file system by default; a simulated disk too).
    init(base: any FileSystem = POSIXFileSystem()) {
        self.base = base
    }
    private let state = Locked<(faults: [Fault], calls: [FileSystemError.Operation: Int], syncDisabled: Bool)>(([], [:], false))
    private let flushThreads = Locked<[ObjectIdentifier]>([])

    /// The threads that made the data flushes since the last call, in order.
    func takeFlushThreads() -> [ObjectIdentifier] {
        flushThreads.withLock { threads in
            defer { threads = [] }
            return threads
        }
    }

    /// Makes every later call of `operation` (on matching paths) fail.
    func fail(_ operation: FileSystemError.Operation, errno errorNumber: Int32, pathContains: String? = nil) {
        state.withLock { $0.faults.append(Fault(operation: operation, errorNumber: errorNumber, pathContains: pathContains)) }
    }

    /// Removes every fault.
    func heal() { state.withLock { $0.faults = [] } }

    /// Skips fsync (file and directory) to write many orders quickly; durability is not under test then.
    func disableSync() { state.withLock { $0.syncDisabled = true } }

    /// How many times each call was made; resets the counts.
    func takeCalls() -> [FileSystemError.Operation: Int] {
        state.withLock { s in
            defer { s.calls = [:] }
            return s.calls
        }
    }

    private func check(_ operation: FileSystemError.Operation, _ path: String) throws(FileSystemError) -> Bool {
        let (fault, skip): (Fault?, Bool) = state.withLock { s in
            s.calls[operation, default: 0] += 1
            let fault = s.faults.first { $0.operation == operation && ($0.pathContains.map(path.contains) ?? true) }
            let skip = s.syncDisabled && [.synchronize, .synchronizeData, .synchronizeDirectory].contains(operation)
            return (fault, skip)
        }
        if let fault { throw FileSystemError(operation: operation, errorNumber: fault.errorNumber, path: path) }
        return !skip
    }

    func makeDirectory(atPath path: String, mode: UInt16) throws(FileSystemError) -> Bool {
        _ = try check(.makeDirectory, path)
        return try base.makeDirectory(atPath: path, mode: mode)
    }

    func setPermissions(atPath path: String, mode: UInt16) throws(FileSystemError) {
        if try check(.setPermissions, path) { try base.setPermissions(atPath: path, mode: mode) }
    }

    func createFile(atPath path: String, mode: UInt16) throws(FileSystemError) -> Int32 {
        _ = try check(.create, path)
        return try base.createFile(atPath: path, mode: mode)
    }

    func write(_ data: Data, to descriptor: Int32, path: String) throws(FileSystemError) {
        if try check(.write, path) { try base.write(data, to: descriptor, path: path) }
    }

    func synchronize(_ descriptor: Int32, path: String) throws(FileSystemError) {
        if try check(.synchronize, path) { try base.synchronize(descriptor, path: path) }
    }

    func synchronizeData(_ descriptor: Int32, path: String) throws(FileSystemError) {
        flushThreads.withLock { $0.append(ObjectIdentifier(Thread.current)) }
        if try check(.synchronizeData, path) { try base.synchronizeData(descriptor, path: path) }
    }

    func preallocate(_ descriptor: Int32, length: Int, path: String) throws(FileSystemError) {
        if try check(.preallocate, path) { try base.preallocate(descriptor, length: length, path: path) }
    }

    func synchronizeFile(atPath path: String) throws(FileSystemError) {
        if try check(.synchronize, path) { try base.synchronizeFile(atPath: path) }
    }

    func close(_ descriptor: Int32, path: String) throws(FileSystemError) {
        do throws(FileSystemError) {
            _ = try check(.close, path)
        } catch {
            // Close for real so that the test does not leak the descriptor, then report the fault.
            try? base.close(descriptor, path: path)
            throw error
        }
        try base.close(descriptor, path: path)
    }

    func rename(_ source: String, to destination: String) throws(FileSystemError) {
        if try check(.rename, destination) { try base.rename(source, to: destination) }
    }

    func removeFile(atPath path: String) throws(FileSystemError) -> Bool {
        _ = try check(.remove, path)
        return try base.removeFile(atPath: path)
    }

    func synchronizeDirectory(atPath path: String) throws(FileSystemError) {
        if try check(.synchronizeDirectory, path) { try base.synchronizeDirectory(atPath: path) }
    }

    func readRegularFile(atPath path: String, maximumSize: Int) throws(FileSystemError) -> FileContents {
        _ = try check(.read, path)
        return try base.readRegularFile(atPath: path, maximumSize: maximumSize)
    }

    func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] {
        _ = try check(.list, path)
        return try base.contentsOfDirectory(atPath: path)
    }
}

extension FileOrderStore.Configuration {
    /// A configuration over a given file system.
    static func testing(_ fileSystem: any FileSystem, clock: any PurchaseClock = SystemClock(),
                        logHandler: any PurchaseLogHandler = SilentLogHandler(),
                        archiveRetention: TimeInterval = 30 * 86_400) -> Self {
        var configuration = Self(archiveRetention: archiveRetention, clock: clock, logHandler: logHandler)
        configuration.fileSystem = fileSystem
        return configuration
    }
}

/// The time test orders are created at, and the clock test stores read, so
/// that archived test orders never expire by the real date.
let testEpoch = Date(timeIntervalSinceReferenceDate: 800_000_000)

/// A store over `directory` with a manual clock standing at ``testEpoch``.
func makeStore(_ directory: URL, fileSystem: any FileSystem = POSIXFileSystem(),
               logHandler: any PurchaseLogHandler = SilentLogHandler()) throws -> FileOrderStore {
    try FileOrderStore(directory: directory,
                       configuration: .testing(fileSystem, clock: ManualClock(start: testEpoch), logHandler: logHandler))
}
