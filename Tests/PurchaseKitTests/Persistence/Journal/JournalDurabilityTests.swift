import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator

/// What each call costs in flushes, that concurrent saves share one, and retention.
final class JournalDurabilityTests: XCTestCase {
    private func calls(_ fileSystem: FaultyFileSystem, _ store: JournalOrderStore, _ body: () async throws -> Void) async rethrows
        -> [FileSystemError.Operation: Int] {
        _ = fileSystem.takeCalls()
        try await body()
        await store.waitUntilWritten()
        return fileSystem.takeCalls()
    }

    func testOnlyTheStatusesALaunchCannotRedoAreFlushedBeforeTheCallReturns() async throws {
        let directory = try makeTemporaryDirectory(self)
        let fileSystem = FaultyFileSystem()
        let store = try makeJournalStore(directory, fileSystem: fileSystem)
        _ = try await store.loadOpenOrders()
        var order = makeOrder("o-1", status: .created)
        var cost = try await calls(fileSystem, store) { try await store.save(order) }
        XCTAssertEqual(cost, [.create: 1, .preallocate: 1, .write: 1], "created: written, not flushed; the new file reserves room")
        order.status = .purchasing
        cost = try await calls(fileSystem, store) { try await store.save(order) }
        XCTAssertEqual(cost, [.write: 1, .synchronizeData: 1, .synchronizeDirectory: 1], "the first flush makes the new file's entry durable too")
        for status in [OrderStatus.purchased, .delivered] {
            order.status = status
            cost = try await calls(fileSystem, store) { try await store.save(order) }
            XCTAssertEqual(cost, [.write: 1, .synchronizeData: 1], "\(status)")
        }
        order.status = .completed
        cost = try await calls(fileSystem, store) { try await store.save(order) }
        XCTAssertEqual(cost, [.write: 1], "completed: written, not flushed")
        cost = try await calls(fileSystem, store) { try await store.archive(orderID: "o-1") }
        XCTAssertEqual(cost, [.write: 1], "archive: written, not flushed")
        cost = try await calls(fileSystem, store) { try await store.flush() }
        XCTAssertEqual(cost, [.synchronizeData: 1])
        cost = try await calls(fileSystem, store) { try await store.remove(orderID: "missing") }
        XCTAssertEqual(cost, [.write: 1, .synchronizeData: 1], "a missing order's id is kept, durably")
        cost = try await calls(fileSystem, store) { try await store.remove(orderID: "missing") }
        XCTAssertEqual(cost, [:], "removing it again writes nothing")
        cost = try await calls(fileSystem, store) { try await store.remove(orderID: "o-1") }
        XCTAssertEqual(cost, [.write: 1, .synchronizeData: 1])
    }

    func testTheOrderAndItsPaymentStartShareOneWriteAndOneFlush() async throws {
        let directory = try makeTemporaryDirectory(self)
        let fileSystem = FaultyFileSystem()
        let store = try makeJournalStore(directory, fileSystem: fileSystem)
        _ = try await store.loadOpenOrders()
        _ = fileSystem.takeCalls()
        var order = makeOrder("o-1", status: .created)
        try await store.save(order)
        order.status = .purchasing
        try await store.save(order)
        XCTAssertEqual(fileSystem.takeCalls(), [.create: 1, .preallocate: 1, .write: 1, .synchronizeData: 1, .synchronizeDirectory: 1],
                       "the created record waited for the purchasing one")
        order.status = .completed
        try await store.save(order)
        try await store.archive(orderID: "o-1")
        XCTAssertEqual(fileSystem.takeCalls(), [:], "completed and the archive wait in memory")
        try await store.save(makeOrder("o-2"))
        XCTAssertEqual(fileSystem.takeCalls(), [.write: 1, .synchronizeData: 1], "and go with the next durable record")
        let (_, report) = try await reopen(store, directory)
        XCTAssertEqual(report.orders.map(\.id), ["o-2"])
    }

    func testRecordsQueuedDuringAFlushShareTheNextOne() async throws {
        let directory = try makeTemporaryDirectory(self)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let gate = GatedFileSystem()
        let writer = JournalWriter(fileSystem: gate, folder: directory.path, reservation: 0)
        writer.run { $0.reset(nextGeneration: 1) }
        var writer1 = ByteWriter()
        JournalRecord.remove(id: "o-0", into: &writer1)
        let record = writer1.bytes
        let (queuedEvents, queued) = AsyncStream<Void>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await suspendThrowing { writer.append(record, needsFlush: true, waiter: $0) } }
            await gate.waitUntilAFlushIsBlocked()
            for _ in 1..<64 {
                group.addTask {
                    try await suspendThrowing { waiter in
                        writer.append(record, needsFlush: true, waiter: waiter)
                        queued.yield()
                    }
                }
            }
            var count = 0
            for await _ in queuedEvents {
                count += 1
                if count == 63 { break }
            }
            gate.release()
            try await group.waitForAll()
        }
        XCTAssertEqual(gate.counts, [.create: 1, .write: 2, .synchronizeData: 2, .synchronizeDirectory: 1],
                       "the first record alone, then the 63 queued behind it in one write and one flush")
        await writer.stopAndWait()
    }

    func testConcurrentSavesAreAllDurableAndTheJournalHoldsThemOnce() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeJournalStore(directory, snapshotThreshold: 4_096)
        let orders = (0..<200).map { makeOrder("o-\($0)", user: "user-\($0 % 7)", createdAt: testEpoch.addingTimeInterval(Double($0))) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for order in orders { group.addTask { try await store.save(order) } }
            try await group.waitForAll()
        }
        let (reopened, report) = try await reopen(store, directory)
        XCTAssertEqual(report.orders, orders)
        XCTAssertTrue(report.problems.isEmpty)
        let seventh = try await reopened.openOrders(forUser: "user-3")
        XCTAssertEqual(seventh, orders.filter { $0.userID == "user-3" })
    }

    func testAnArchivedOrderIsCompactedAfterItsRetentionAndStillAnswersEveryLookup() async throws {
        let directory = try makeTemporaryDirectory(self)
        let clock = ManualClock(start: testEpoch)
        let store = try makeJournalStore(directory, clock: clock, archiveRetention: 86_400)
        var order = makeFullOrder("o-1", status: .completed)
        order.transaction?.receipt = Data("RECEIPT-SECRET-BYTES".utf8)
        try await store.save(order)
        try await store.archive(orderID: "o-1")
        let beforeRetention = try await store.compactArchive()
        XCTAssertEqual(beforeRetention, 0)
        clock.advance(by: 2 * 86_400)
        let compactedCount = try await store.compactArchive()
        XCTAssertEqual(compactedCount, 1)
        let expected = CompactOrderRecord.compact(order)
        let byID = try await store.order(id: "o-1")
        XCTAssertEqual(byID, expected)
        XCTAssertEqual(byID?.productType, .autoRenewable, "what entitlements need stays")
        let byToken = try await store.order(token: "token-o-1")
        XCTAssertEqual(byToken, expected)
        let byTransaction = try await store.order(transactionID: "t-o-1")
        XCTAssertEqual(byTransaction, expected)
        // The receipt left the disk with the snapshot that replaced the journal.
        for name in journalFiles(directory) {
            let bytes = try Data(contentsOf: directory.appendingPathComponent("journal/\(name)"))
            XCTAssertNil(bytes.firstRange(of: Data("RECEIPT-SECRET".utf8)), name)
        }
        let (reopened, _) = try await reopen(store, directory)
        let history = try await reopened.orders(forUser: "user-1")
        XCTAssertEqual(history, [expected])
    }

    /// The retention is how long an archived order is kept whole: one whose
    /// last change is exactly the retention old is kept whole still, and
    /// compacted only once it is older.
    func testAnArchivedOrderIsKeptWholeForTheWholeRetention() async throws {
        let directory = try makeTemporaryDirectory(self)
        let clock = ManualClock(start: testEpoch)
        let retention: TimeInterval = 86_400
        let store = try makeJournalStore(directory, clock: clock, archiveRetention: retention)
        var order = makeFullOrder("o-1", status: .completed)
        order.updatedAt = testEpoch
        try await store.save(order)
        try await store.archive(orderID: "o-1")
        clock.advance(to: order.updatedAt.addingTimeInterval(retention))
        let atRetention = try await store.compactArchive()
        XCTAssertEqual(atRetention, 0)
        let whole = try await store.order(id: "o-1")
        XCTAssertEqual(whole, order)
        clock.advance(by: 1)
        let pastRetention = try await store.compactArchive()
        XCTAssertEqual(pastRetention, 1)
        let compacted = try await store.order(id: "o-1")
        XCTAssertEqual(compacted, CompactOrderRecord.compact(order))
        await store.close()
    }
}

/// The real file system, whose first data flush blocks until the test
/// releases it (unless made with `blocksFirstFlush` false), counting every
/// call and noting the thread of every data flush.
///
/// `@unchecked Sendable` is safe: the counts and the continuation are only
/// touched under the lock; the semaphore is thread-safe.
final class GatedFileSystem: FileSystem, @unchecked Sendable {
    private let base = POSIXFileSystem()
    private let lock = NSLock()
    private let gate = DispatchSemaphore(value: 0)
    private var calls: [FileSystemError.Operation: Int] = [:]
    private var blocked = false
    private var blockedWaiter: CheckedContinuation<Void, Never>?
    private var blockedOnMarkedThread = false
    private var flushedOn: [ObjectIdentifier] = []

    init(blocksFirstFlush: Bool = true) { blocked = !blocksFirstFlush }

    /// The threads of the data flushes, in order.
    var flushThreads: [ObjectIdentifier] { lock.withLock { flushedOn } }

    var counts: [FileSystemError.Operation: Int] { lock.withLock { calls } }
    /// Whether the blocked flush was made on a thread marked with ``markCurrentThread()``.
    var blockedFlushWasOnAMarkedThread: Bool { lock.withLock { blockedOnMarkedThread } }

    /// Marks the calling thread, for ``blockedFlushWasOnAMarkedThread``.
    static func markCurrentThread() { Thread.current.threadDictionary[markKey] = true }
    private static let markKey = "GatedFileSystem.marked"

    func waitUntilAFlushIsBlocked() async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> Bool in
                if blocked { return true }
                blockedWaiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    func release() { gate.signal() }

    private func count(_ operation: FileSystemError.Operation) { lock.withLock { calls[operation, default: 0] += 1 } }

    func synchronizeData(_ descriptor: Int32, path: String) throws(FileSystemError) {
        count(.synchronizeData)
        lock.withLock { flushedOn.append(ObjectIdentifier(Thread.current)) }
        let first = lock.withLock { () -> (Bool, CheckedContinuation<Void, Never>?) in
            guard !blocked else { return (false, nil) }
            blocked = true
            blockedOnMarkedThread = Thread.current.threadDictionary[Self.markKey] as? Bool ?? false
            defer { blockedWaiter = nil }
            return (true, blockedWaiter)
        }
        if first.0 {
            first.1?.resume()
            gate.wait()
        }
        try base.synchronizeData(descriptor, path: path)
    }

    func makeDirectory(atPath path: String, mode: UInt16) throws(FileSystemError) -> Bool {
        count(.makeDirectory)
        return try base.makeDirectory(atPath: path, mode: mode)
    }
    func setPermissions(atPath path: String, mode: UInt16) throws(FileSystemError) {
        count(.setPermissions)
        try base.setPermissions(atPath: path, mode: mode)
    }
    func createFile(atPath path: String, mode: UInt16) throws(FileSystemError) -> Int32 {
        count(.create)
        return try base.createFile(atPath: path, mode: mode)
    }
    func write(_ data: Data, to descriptor: Int32, path: String) throws(FileSystemError) {
        count(.write)
        try base.write(data, to: descriptor, path: path)
    }
    func synchronize(_ descriptor: Int32, path: String) throws(FileSystemError) {
        count(.synchronize)
        try base.synchronize(descriptor, path: path)
    }
    func preallocate(_ descriptor: Int32, length: Int, path: String) throws(FileSystemError) {
        count(.preallocate)
        try base.preallocate(descriptor, length: length, path: path)
    }
    func synchronizeFile(atPath path: String) throws(FileSystemError) {
        count(.synchronize)
        try base.synchronizeFile(atPath: path)
    }
    func close(_ descriptor: Int32, path: String) throws(FileSystemError) {
        try base.close(descriptor, path: path)
    }
    func rename(_ source: String, to destination: String) throws(FileSystemError) {
        count(.rename)
        try base.rename(source, to: destination)
    }
    func removeFile(atPath path: String) throws(FileSystemError) -> Bool {
        count(.remove)
        return try base.removeFile(atPath: path)
    }
    func synchronizeDirectory(atPath path: String) throws(FileSystemError) {
        count(.synchronizeDirectory)
        try base.synchronizeDirectory(atPath: path)
    }
    func readRegularFile(atPath path: String, maximumSize: Int) throws(FileSystemError) -> FileContents {
        try base.readRegularFile(atPath: path, maximumSize: maximumSize)
    }
    func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] {
        try base.contentsOfDirectory(atPath: path)
    }
}
