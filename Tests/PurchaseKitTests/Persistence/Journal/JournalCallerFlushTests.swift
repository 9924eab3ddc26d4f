import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator

/// When a save flushes its record on its own thread instead of the journal's
/// thread, and that records still reach the disk whole and in order.
final class JournalCallerFlushTests: XCTestCase {
    func testACallerThatClaimsTheIdleWriterFlushesItsRecordItselfAndWhatIsQueuedBehindWaitsForIt() async throws {
        let directory = try makeTemporaryDirectory(self)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let gate = GatedFileSystem()
        let writer = JournalWriter(fileSystem: gate, folder: directory.path, reservation: 0)
        // The thread has run and sleeps, with nothing queued.
        _ = await writer.perform { _ in }
        await writer.waitUntilIdle()
        @Sendable func record(_ id: String) -> [UInt8] {
            var bytes = ByteWriter()
            JournalRecord.remove(id: id, into: &bytes)
            return bytes.bytes
        }
        let (queuedEvents, queued) = AsyncStream<Void>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                    // A thread of its own: the caller blocks in the gated flush.
                    Thread {
                        GatedFileSystem.markCurrentThread()
                        guard var batch = writer.claimIfIdle() else {
                            return waiter.resume(throwing: JournalTestFailure("the idle writer could not be claimed"))
                        }
                        batch.bytes.append(contentsOf: record("o-first"))
                        batch.needsFlush = true
                        if let error = writer.writeClaimed(batch) { return waiter.resume(throwing: error) }
                        waiter.resume()
                    }.start()
                }
            }
            await gate.waitUntilAFlushIsBlocked()
            XCTAssertTrue(gate.blockedFlushWasOnAMarkedThread, "the caller flushes its record itself")
            group.addTask {
                try await suspendThrowing { waiter in
                    writer.append(record("o-second"), needsFlush: true, waiter: waiter)
                    queued.yield()
                }
            }
            for await _ in queuedEvents { break }
            XCTAssertNil(writer.claimIfIdle(), "one caller at a time holds the writer")
            gate.release()
            try await group.waitForAll()
        }
        XCTAssertEqual(gate.counts, [.create: 1, .write: 2, .synchronizeData: 2, .synchronizeDirectory: 1],
                       "the record queued behind waited for the caller's flush, then the thread wrote and flushed it")
        let bytes = try Data(contentsOf: directory.appendingPathComponent(JournalFiles.journalName(1)))
        let first = try XCTUnwrap(bytes.firstRange(of: Data("o-first".utf8)))
        let second = try XCTUnwrap(bytes.firstRange(of: Data("o-second".utf8)))
        XCTAssertLessThan(first.lowerBound, second.lowerBound, "records reach the file in the order they were queued")
        await writer.stopAndWait()
    }

    func testSavesOneOrderAtATimeAreFlushedByTheirCallerAndInterleavedOnesByTheThread() async throws {
        let directory = try makeTemporaryDirectory(self)
        let fileSystem = GatedFileSystem(blocksFirstFlush: false)
        let store = try makeJournalStore(directory, fileSystem: fileSystem)
        _ = try await store.loadOpenOrders()
        let writerThread = await store.writer.perform { _ in ObjectIdentifier(Thread.current) }
        // Who flushed a change: "none" (it was not flushed), "caller" or "thread".
        typealias Flush = String
        func change(_ body: () async throws -> Void) async throws -> Flush {
            await store.waitUntilWritten()
            let before = fileSystem.flushThreads.count
            try await body()
            let after = fileSystem.flushThreads
            guard after.count > before else { return "none" }
            XCTAssertEqual(after.count, before + 1)
            return after[before] == writerThread ? "thread" : "caller"
        }
        func save(_ id: String, _ status: OrderStatus) async throws -> Flush {
            try await change { try await store.save(makeOrder(id, status: status)) }
        }
        for id in ["o-1", "o-2"] {
            var flushes: [Flush] = []
            for status in [OrderStatus.created, .purchasing, .purchased, .delivered, .completed] {
                flushes.append(try await save(id, status))
            }
            flushes.append(try await change { try await store.archive(orderID: id) })
            XCTAssertEqual(flushes, ["none", "caller", "caller", "caller", "none", "none"], "one purchase at a time: \(id)")
        }
        let interleaved = [
            try await save("o-3", .purchasing), // o-2 has ended
            try await save("o-4", .purchasing), // o-3 has not
            try await save("o-3", .purchased),
            try await save("o-3", .delivered),
        ]
        XCTAssertEqual(interleaved, ["caller", "thread", "thread", "caller"])
        let (_, report) = try await reopen(store, directory)
        XCTAssertEqual(report.orders.map { "\($0.id) \($0.status)" }, ["o-3 delivered", "o-4 purchasing"], "what was saved, wherever it was flushed")
    }

    func testLifecyclesSavedFromManyTasksAtOnceAllSurviveWithTheirLastState() async throws {
        let directory = try makeTemporaryDirectory(self)
        // A small threshold: snapshots are written while the saves go on.
        let store = try makeJournalStore(directory, snapshotThreshold: 8_192)
        _ = try await store.loadOpenOrders()
        let workers = 8, ordersEach = 25
        let statuses: [OrderStatus] = [.created, .purchasing, .purchased, .delivered, .completed]
        // Each task runs its orders' lifecycles one at a time (the pattern a
        // caller may flush itself); the tasks interleave (the pattern that
        // goes to the thread), so the store switches between the two.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    for number in 0..<ordersEach {
                        let id = "o-\(worker)-\(number)"
                        for status in statuses {
                            try await store.save(makeOrder(id, user: "user-\(worker)", status: status))
                        }
                        // Every fifth order stays open.
                        if number % 5 != 4 { try await store.archive(orderID: id) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let (reopened, report) = try await reopen(store, directory)
        XCTAssertEqual(report.problems.count, 0)
        let expectedOpen = (0..<workers).flatMap { worker in
            (0..<ordersEach).filter { $0 % 5 == 4 }.map { "o-\(worker)-\($0)" }
        }
        XCTAssertEqual(Set(report.orders.map(\.id)), Set(expectedOpen))
        for worker in 0..<workers {
            let history = try await reopened.orders(forUser: "user-\(worker)")
            XCTAssertEqual(history.count, ordersEach, "user-\(worker)")
            XCTAssertEqual(Set(history.map(\.status)), [.completed], "every order's last save is the one that stayed")
        }
        await reopened.close()
    }

    func testAFailedFlushOnTheCallersThreadFailsTheSaveAndTheReloadSetsItAside() async throws {
        let directory = try makeTemporaryDirectory(self)
        let fileSystem = FaultyFileSystem()
        let store = try makeJournalStore(directory, fileSystem: fileSystem)
        _ = try await store.loadOpenOrders()
        let thread = await store.writer.perform { _ in ObjectIdentifier(Thread.current) }
        let writerThread = try XCTUnwrap(thread)
        // The thread sleeps, with nothing queued: a save can claim the writer.
        await store.waitUntilWritten()
        try await store.save(makeOrder("o-1", status: .purchasing))
        // The next save is about the same order: its caller flushes it.
        fileSystem.fail(.synchronizeData, errno: EIO)
        let error = await assertThrows(.persistenceWriteFailed) { try await store.save(makeOrder("o-1", status: .purchased)) }
        XCTAssertTrue(error?.message.contains("fdatasync failed") == true, "\(String(describing: error))")
        XCTAssertEqual((error?.underlying as? POSIXError)?.code, .EIO)
        let flushes = fileSystem.takeFlushThreads()
        XCTAssertEqual(flushes.count, 2)
        XCTAssertFalse(flushes.contains(writerThread), "both saves were flushed by their callers")
        fileSystem.heal()
        // The write went through, but its flush failed: the reload does not count it.
        let reloaded = try await store.loadOpenOrders()
        XCTAssertEqual(reloaded.orders.map { "\($0.id) \($0.status)" }, ["o-1 purchasing"])
        XCTAssertEqual(reloaded.problems.map(\.code), [.persistenceWriteFailed])
        try await store.save(makeOrder("o-1", status: .delivered))
        let (_, reopened) = try await reopen(store, directory)
        XCTAssertEqual(reopened.orders.map { "\($0.id) \($0.status)" }, ["o-1 delivered"])
        XCTAssertTrue(reopened.problems.isEmpty, "\(reopened.problems)")
    }

    func testAFailedWriteOnTheCallersThreadLeavesTheOrderAsItWasAndTheStoreGoesOn() async throws {
        let directory = try makeTemporaryDirectory(self)
        let fileSystem = FaultyFileSystem()
        let store = try makeJournalStore(directory, fileSystem: fileSystem)
        _ = try await store.loadOpenOrders()
        await store.waitUntilWritten()
        try await store.save(makeOrder("o-1", status: .purchasing))
        fileSystem.fail(.write, errno: ENOSPC)
        let error = await assertThrows(.persistenceWriteFailed) { try await store.save(makeOrder("o-1", status: .purchased)) }
        XCTAssertEqual((error?.underlying as? POSIXError)?.code, .ENOSPC)
        fileSystem.heal()
        let order = try await store.order(id: "o-1")
        XCTAssertEqual(order?.status, .purchasing, "the reload shows what the disk holds")
        try await store.save(makeOrder("o-1", status: .purchased))
        let (_, reopened) = try await reopen(store, directory)
        XCTAssertEqual(reopened.orders.map { "\($0.id) \($0.status)" }, ["o-1 purchased"])
        XCTAssertTrue(reopened.problems.isEmpty, "\(reopened.problems)")
    }
}

private struct JournalTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
