import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator

/// Failing calls: a save that could not be flushed says so, the store
/// reloads from disk without what was not flushed and goes on; a file that cannot be read fails the load
/// and is left alone; a snapshot that fails loses nothing.
final class JournalFaultTests: XCTestCase {
    func testAFailedFlushFailsTheSaveAndTheReloadSetsAsideWhatWasNotFlushed() async throws {
        let directory = try makeTemporaryDirectory(self)
        let fileSystem = FaultyFileSystem()
        let store = try makeJournalStore(directory, fileSystem: fileSystem)
        try await store.save(makeOrder("o-1"))
        fileSystem.fail(.synchronizeData, errno: EIO)
        let error = await assertThrows(.persistenceWriteFailed) { try await store.save(makeOrder("o-2")) }
        XCTAssertTrue(error?.message.contains("fdatasync failed") == true, "\(String(describing: error))")
        fileSystem.heal()
        // The next call reloads. o-2's record was written, but its flush
        // failed: it may be in the page cache only, so it is not read back.
        let afterReload = try await store.loadOpenOrders()
        XCTAssertEqual(afterReload.orders.map(\.id), ["o-1"])
        XCTAssertEqual(afterReload.problems.map(\.code), [.persistenceWriteFailed])
        XCTAssertTrue(afterReload.problems.first?.message.contains("moved to quarantine/") == true, "\(afterReload.problems)")
        try await store.save(makeOrder("o-3", createdAt: testEpoch.addingTimeInterval(1)))
        let (_, reopened) = try await reopen(store, directory)
        XCTAssertEqual(reopened.orders.map(\.id), ["o-1", "o-3"], "a fresh snapshot replaced the file: o-2 does not come back")
        XCTAssertTrue(reopened.problems.isEmpty, "\(reopened.problems)")
    }

    /// A snapshot takes the index when it begins and is handed to the
    /// store's thread a moment later. If a reload (after a failed write)
    /// begins in between, the index may hold a record whose write failed:
    /// the snapshot must not be written.
    func testASnapshotBegunBeforeAReloadIsAbandoned() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeJournalStore(directory)
        try await store.save(makeOrder("o-1"))
        let (outcomes, outcome) = AsyncStream<Result<Int, FileSystemError>>.makeStream()
        let stale = store.state.withLock { s in store.beginSnapshot(&s) { outcome.yield($0) } }
        store.state.withLock { $0.phase = .unloaded }
        _ = try await store.loadOpenOrders()
        store.startSnapshot(stale)
        var results = outcomes.makeAsyncIterator()
        let result = await results.next()
        guard case .failure? = result else { return XCTFail("the stale snapshot was written: \(String(describing: result))") }
        try await store.save(makeOrder("o-2", createdAt: testEpoch.addingTimeInterval(1)))
        let (_, reopened) = try await reopen(store, directory)
        XCTAssertEqual(reopened.orders.map(\.id), ["o-1", "o-2"])
        XCTAssertTrue(reopened.problems.isEmpty, "\(reopened.problems)")
    }

    /// A snapshot begun right after a save's record was queued holds that
    /// save; when the record's write then fails, the save throws, and the
    /// snapshot must not be written: it would make the failed save durable.
    /// (On the calling thread, so that the write fails before the snapshot's first step.)
    func testASnapshotDoesNotMakeDurableASaveWhoseWriteFailed() async throws {
        let directory = try makeTemporaryDirectory(self)
        let first = try makeJournalStore(directory)
        try await first.save(makeOrder("o-1"))
        await first.close()
        // The launch counts the journal it read: the next record begins a snapshot.
        let fileSystem = FaultyFileSystem()
        let logs = RecordingLogHandler()
        let store = try makeJournalStore(directory, fileSystem: fileSystem, logHandler: logs, snapshotThreshold: 1, onCallingThread: true)
        _ = try await store.loadOpenOrders()
        fileSystem.fail(.write, errno: ENOSPC, pathContains: "/journal/log-")
        _ = await assertThrows(.persistenceWriteFailed) { try await store.save(makeOrder("o-2", createdAt: testEpoch.addingTimeInterval(1))) }
        XCTAssertTrue(logs.records.contains { $0.message.contains("snapshot of the order journal could not be written") },
                      "the snapshot holding o-2 was begun, then given up")
        fileSystem.heal()
        XCTAssertFalse(journalFiles(directory).contains { $0.hasPrefix("snapshot-") }, "\(journalFiles(directory))")
        let reloaded = try await store.order(id: "o-2")
        XCTAssertNil(reloaded, "the save threw: the reload does not find it")
        let (_, reopened) = try await reopen(store, directory)
        XCTAssertEqual(reopened.orders.map(\.id), ["o-1"])
    }

    func testAFailedWriteLeavesNothingAndTheStoreGoesOnAfterwards() async throws {
        let directory = try makeTemporaryDirectory(self)
        let fileSystem = FaultyFileSystem()
        let store = try makeJournalStore(directory, fileSystem: fileSystem)
        try await store.save(makeOrder("o-1"))
        fileSystem.fail(.write, errno: ENOSPC)
        let error = await assertThrows(.persistenceWriteFailed) { try await store.save(makeOrder("o-2")) }
        XCTAssertEqual((error?.underlying as? POSIXError)?.code, .ENOSPC)
        fileSystem.heal()
        let order = try await store.order(id: "o-2")
        XCTAssertNil(order, "the reload shows what the disk holds")
        try await store.save(makeOrder("o-2"))
        let (_, reopened) = try await reopen(store, directory)
        XCTAssertEqual(reopened.orders.map(\.id), ["o-1", "o-2"])
    }

    func testAJournalThatCannotBeReadFailsTheLoadAndIsLeftInPlace() async throws {
        let directory = try makeTemporaryDirectory(self)
        let first = try makeJournalStore(directory)
        try await first.save(makeOrder("o-1"))
        await first.close()
        let files = journalFiles(directory)
        let fileSystem = FaultyFileSystem()
        fileSystem.fail(.read, errno: EIO, pathContains: "/journal/log-")
        let store = try makeJournalStore(directory, fileSystem: fileSystem)
        _ = await assertThrows(.persistenceReadFailed) { _ = try await store.loadOpenOrders() }
        _ = await assertThrows(.persistenceReadFailed) { try await store.save(makeOrder("o-2")) }
        XCTAssertEqual(journalFiles(directory), files, "nothing was deleted or written")
        fileSystem.heal()
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.orders.map(\.id), ["o-1"])
    }

    func testAFolderThatCannotBeListedFailsTheLoadUntilItCan() async throws {
        let directory = try makeTemporaryDirectory(self)
        let fileSystem = FaultyFileSystem()
        let store = try makeJournalStore(directory, fileSystem: fileSystem)
        fileSystem.fail(.list, errno: EACCES)
        _ = await assertThrows(.persistenceReadFailed) { _ = try await store.loadOpenOrders() }
        fileSystem.heal()
        try await store.save(makeOrder("o-1"))
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.orders.map(\.id), ["o-1"])
    }

    func testAFailedSnapshotLosesNothingAndTheNextOneSucceeds() async throws {
        let directory = try makeTemporaryDirectory(self)
        let fileSystem = FaultyFileSystem()
        let logs = RecordingLogHandler()
        let store = try makeJournalStore(directory, fileSystem: fileSystem, logHandler: logs, snapshotThreshold: 1)
        fileSystem.fail(.rename, errno: EIO, pathContains: "/journal/snapshot-")
        try await store.save(makeOrder("o-1"))
        await store.waitUntilWritten()
        XCTAssertTrue(logs.records.contains { $0.message.contains("snapshot of the order journal could not be written") })
        XCTAssertFalse(journalFiles(directory).contains { $0.hasPrefix(".tmp-") }, "the temporary file was removed")
        fileSystem.heal()
        try await store.save(makeOrder("o-2", createdAt: testEpoch.addingTimeInterval(1)))
        await store.waitUntilWritten()
        XCTAssertEqual(journalFiles(directory).filter { $0.hasPrefix("snapshot-") }.count, 1)
        let (_, reopened) = try await reopen(store, directory)
        XCTAssertEqual(reopened.orders.map(\.id), ["o-1", "o-2"])
    }

    func testAnOrderAboveTheLimitIsRefusedAndAClosedStoreRefusesEverything() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeJournalStore(directory, maximumRecordSize: 500)
        var large = makeOrder("o-large")
        large.metadata = ["blob": String(repeating: "x", count: 600)]
        let error = await assertThrows(.persistenceWriteFailed) { try await store.save(large) }
        XCTAssertEqual(error?.orderID, "o-large")
        let missing = try await store.order(id: "o-large")
        XCTAssertNil(missing)
        await store.close()
        _ = await assertThrows(.persistenceWriteFailed) { try await store.save(makeOrder("o-1")) }
    }

    /// The limit is inclusive: an order whose record is exactly as large as
    /// the limit allows is saved, so a launch with the same limit must read it
    /// back rather than set aside a paid order it acknowledged.
    func testAnOrderExactlyAtTheLimitIsSavedAndReadBackByALaunchWithTheSameLimit() async throws {
        let directory = try makeTemporaryDirectory(self)
        let order = makeFullOrder("o-limit")
        var record = ByteWriter()
        JournalRecord.put(order, place: .open, into: &record)
        // The limit counts the order's bytes: the record less its frame header, kind and place.
        let limit = record.bytes.count - JournalFrame.headerSize - 2
        let store = try makeJournalStore(directory, maximumRecordSize: limit)
        try await store.save(order)
        await store.close()

        let reopened = try makeJournalStore(directory, maximumRecordSize: limit)
        let report = try await reopened.loadOpenOrders()
        XCTAssertEqual(report.orders, [order])
        XCTAssertTrue(report.problems.isEmpty, "\(report.problems)")
        XCTAssertEqual(names(in: directory, "quarantine"), [])
        await reopened.close()
    }

    /// Damage leaves the journal only once its bytes are kept in the
    /// quarantine folder: while they cannot be copied there, no snapshot
    /// replaces the file that holds them, and a later launch that can copy
    /// them sets them aside then.
    func testDamageThatCannotBeQuarantinedStaysInTheJournalUntilALaunchCanKeepIt() async throws {
        let directory = try makeTemporaryDirectory(self)
        let garbage = Data(JournalFrame.magic + (1...40).map { UInt8($0) })
        let file = try await appendToJournal(of: makeOrder("o-1"), in: directory, Array(garbage))

        let faulty = FaultyFileSystem()
        faulty.fail(.create, errno: ENOSPC, pathContains: "/quarantine/")
        let blocked = try makeJournalStore(directory, fileSystem: faulty)
        let report = try await blocked.loadOpenOrders()
        XCTAssertEqual(report.orders.map(\.id), ["o-1"])
        XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt])
        XCTAssertTrue(report.problems.first?.message.contains("could not be copied to the quarantine folder") == true, "\(report.problems)")
        await blocked.close()
        XCTAssertEqual(names(in: directory, "quarantine"), [])
        XCTAssertEqual(try Data(contentsOf: file).suffix(garbage.count), garbage, "the damaged bytes are still in their file")

        faulty.heal()
        let healed = try makeJournalStore(directory, fileSystem: faulty)
        let again = try await healed.loadOpenOrders()
        XCTAssertEqual(again.orders.map(\.id), ["o-1"])
        XCTAssertTrue(again.problems.first?.message.contains("moved to quarantine/") == true, "\(again.problems)")
        let kept = names(in: directory, "quarantine")
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(try kept.first.map { try Data(contentsOf: directory.appendingPathComponent("quarantine/\($0)")) }, garbage)
        await healed.close()
    }
}
