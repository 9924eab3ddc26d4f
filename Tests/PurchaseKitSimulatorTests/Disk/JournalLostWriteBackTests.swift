import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// A flush of the journal fails as a lost write-back does on Linux: the call
/// that waited for it fails, the store reloads at its next call, and what was
/// written since the last good flush is still readable (from the page cache)
/// but never reaches the disk, however often the file is flushed again. The
/// reload must not read it back as durable.
final class JournalLostWriteBackTests: XCTestCase {
    private let kept = ConsumableSpend(id: "spend-1", userID: "user-1", balanceKey: "coins", amount: 2,
                                       date: TestOrders.epoch, balanceAfter: 8)
    private let failed = ConsumableSpend(id: "spend-2", userID: "user-1", balanceKey: "coins", amount: 3,
                                         date: TestOrders.epoch.addingTimeInterval(1), balanceAfter: 5)

    private func openStore(on disk: SimulatedDisk, snapshotThreshold: Int = 1 << 20) async throws
        -> (JournalOrderStore, WriteBackFailure) {
        let writeBack = WriteBackFailure()
        let store = try JournalProcess.openStore(SabotagedFileSystem(disk: disk, skipped: nil, writeBack: writeBack),
                                                 .init(snapshotThreshold: snapshotThreshold))
        _ = try await store.loadOpenOrders()
        return (store, writeBack)
    }

    /// Records `failed` with the next flush failing: the call throws.
    private func recordFailedSpend(in store: JournalOrderStore, _ writeBack: WriteBackFailure) async {
        writeBack.arm()
        await assertThrows(.persistenceWriteFailed) { _ = try await store.recordSpend(failed) }
    }

    /// The spends of `user-1` a new process finds after the power is cut,
    /// keeping only what was flushed.
    private func spendsAfterPowerCut(_ store: JournalOrderStore, on disk: SimulatedDisk) async throws -> [ConsumableSpend] {
        let reopened = try await JournalProcess.relaunch(store, on: disk)
        let spends = try await reopened.spends(forUser: "user-1")
        await reopened.close()
        return spends
    }

    func testASpendWhoseFlushFailedIsNotReadBackAndItsRetryIsDurable() async throws {
        let disk = try CrashSite.disk()
        let (store, writeBack) = try await openStore(on: disk)
        _ = try await store.recordSpend(kept)
        await recordFailedSpend(in: store, writeBack)

        let afterReload = try await store.spends(forUser: "user-1")
        XCTAssertEqual(afterReload, [kept], "the failed spend was read back from the cache as recorded")
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.problems.map(\.code), [.persistenceWriteFailed])
        XCTAssertTrue(report.problems.first?.message.contains("never confirmed on disk") == true, "\(report.problems)")

        // The app retries the spend with the same id: now it is written again, and flushed.
        let retried = try await store.recordSpend(failed)
        XCTAssertEqual(retried, failed)
        let spends = try await spendsAfterPowerCut(store, on: disk)
        XCTAssertEqual(spends, [kept, failed])
    }

    func testAnOrderWhoseSaveFailedStaysAsLastFlushedUntilItIsSavedAgain() async throws {
        let disk = try CrashSite.disk()
        let (store, writeBack) = try await openStore(on: disk)
        let purchased = TestOrders.version(1, of: "order-a", status: .purchased)
        var delivered = TestOrders.version(2, of: "order-a", status: .delivered)
        try await store.save(purchased)
        writeBack.arm()
        await assertThrows(.persistenceWriteFailed) { try await store.save(delivered) }

        let afterReload = try await store.order(id: "order-a")
        XCTAssertEqual(afterReload, purchased, "the failed save was read back from the cache")
        delivered.metadata["version"] = "3"
        try await store.save(delivered)
        let reopened = try await JournalProcess.relaunch(store, on: disk)
        let loaded = try await reopened.order(id: "order-a")
        XCTAssertEqual(loaded, delivered)
        await reopened.close()
    }

    func testTheFirstRecordOfANewJournalFileIsSetAsideWholeWhenItsFlushFails() async throws {
        let disk = try CrashSite.disk()
        let (store, writeBack) = try await openStore(on: disk)
        await recordFailedSpend(in: store, writeBack)
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.problems.map(\.code), [.persistenceWriteFailed], "\(report.problems)")
        let afterReload = try await store.spends(forUser: "user-1")
        XCTAssertEqual(afterReload, [])
        _ = try await store.recordSpend(failed)
        let reopened = try await JournalProcess.relaunch(store, on: disk)
        let spends = try await reopened.spends(forUser: "user-1")
        XCTAssertEqual(spends, [failed])
        let reopenedReport = try await reopened.loadOpenOrders()
        XCTAssertTrue(reopenedReport.problems.isEmpty, "\(reopenedReport.problems)")
        await reopened.close()
    }

    /// The record whose flush fails also begins a snapshot (every record
    /// does, here): the snapshot, taken with the record in it, must not make
    /// it durable behind the failed call's back.
    func testASnapshotBegunWithTheFailedRecordIsAbandoned() async throws {
        let disk = try CrashSite.disk()
        let (store, writeBack) = try await openStore(on: disk, snapshotThreshold: 1)
        await recordFailedSpend(in: store, writeBack)
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.problems.map(\.code), [.persistenceWriteFailed], "\(report.problems)")
        let afterReload = try await store.spends(forUser: "user-1")
        XCTAssertEqual(afterReload, [], "the failed spend was kept by the snapshot")
        let spends = try await spendsAfterPowerCut(store, on: disk)
        XCTAssertEqual(spends, [])
    }

    /// The reload that sets the unconfirmed bytes aside cannot put its fresh
    /// snapshot in place, so the file stays; a later failure and reload must
    /// still leave those bytes out.
    func testBytesSetAsideStayOutWhenTheFreshSnapshotFailsAndAnotherFlushFails() async throws {
        let disk = try CrashSite.disk()
        let (store, writeBack) = try await openStore(on: disk)
        _ = try await store.recordSpend(kept)
        await recordFailedSpend(in: store, writeBack)
        writeBack.failsRenames = true
        let afterFirstReload = try await store.spends(forUser: "user-1")
        XCTAssertEqual(afterFirstReload, [kept])
        try await store.save(TestOrders.version(1, of: "order-a"))
        writeBack.arm()
        await assertThrows(.persistenceWriteFailed) { try await store.save(TestOrders.version(2, of: "order-a")) }
        let afterSecondReload = try await store.spends(forUser: "user-1")
        XCTAssertEqual(afterSecondReload, [kept], "the first failure's bytes came back at the second reload")

        let retried = try await store.recordSpend(failed)
        XCTAssertEqual(retried, failed)
        writeBack.failsRenames = false
        let spends = try await spendsAfterPowerCut(store, on: disk)
        XCTAssertEqual(spends, [kept, failed], "the retried spend was returned as recorded, then lost")
    }

    /// A `completed` save returns before its flush. Another order's flush
    /// that fails after it must not make the reload forget it: the archive
    /// that follows would move the older, `delivered` version to the archive,
    /// a version the app never archived and that no launch finishes again.
    func testACompletedSaveWrittenBeforeAFailedFlushOutlivesTheReload() async throws {
        try await assertACompletedSaveOutlivesTheReload(snapshotFails: false)
    }

    /// The same when the reload cannot put its fresh snapshot in place: the
    /// completed save goes to the new journal again, ahead of what follows.
    func testACompletedSaveOutlivesAReloadWhoseSnapshotFails() async throws {
        try await assertACompletedSaveOutlivesTheReload(snapshotFails: true)
    }

    private func assertACompletedSaveOutlivesTheReload(snapshotFails: Bool, file: StaticString = #filePath,
                                                       line: UInt = #line) async throws {
        let disk = try CrashSite.disk()
        let (store, writeBack) = try await openStore(on: disk)
        let delivered = TestOrders.version(1, of: "order-a", status: .delivered)
        let completed = TestOrders.version(2, of: "order-a", status: .completed)
        try await store.save(delivered)
        try await store.save(completed)
        await store.waitUntilWritten()
        writeBack.arm()
        writeBack.failsRenames = snapshotFails
        await assertThrows(.persistenceWriteFailed) { try await store.save(TestOrders.version(1, of: "order-b", user: "user-2")) }

        let afterReload = try await store.order(id: "order-a")
        XCTAssertEqual(afterReload, completed, "the reload forgot the completed save it had acknowledged", file: file, line: line)
        try await store.archive(orderID: "order-a")
        // A durable save after the archive makes it durable too.
        let retried = TestOrders.version(2, of: "order-b", user: "user-2")
        try await store.save(retried)
        writeBack.failsRenames = false
        let reopened = try await JournalProcess.relaunch(store, on: disk)
        let archived = try await reopened.archivedOrders()
        XCTAssertEqual(archived, [completed], "the archive moved a version that was never archived", file: file, line: line)
        let open = try await reopened.loadOpenOrders()
        XCTAssertEqual(open.orders, [retried], file: file, line: line)
        await reopened.close()
    }

    /// The same for a `completed` order saved straight into the archive, as
    /// the engine saves an order that comes to rest: one record, acknowledged
    /// before its flush.
    func testACompletedSaveIntoTheArchiveWrittenBeforeAFailedFlushOutlivesTheReload() async throws {
        let disk = try CrashSite.disk()
        let (store, writeBack) = try await openStore(on: disk)
        let completed = TestOrders.version(2, of: "order-a", status: .completed)
        try await store.save(TestOrders.version(1, of: "order-a", status: .delivered))
        try await store.saveArchived(completed)
        await store.waitUntilWritten()
        writeBack.arm()
        await assertThrows(.persistenceWriteFailed) { try await store.save(TestOrders.version(1, of: "order-b", user: "user-2")) }

        let afterReload = try await store.archivedOrders()
        XCTAssertEqual(afterReload, [completed], "the reload forgot the save into the archive it had acknowledged")
        let openAfterReload = try await store.loadOpenOrders()
        XCTAssertEqual(openAfterReload.orders, [], "the delivered version came back open")
        let retried = TestOrders.version(2, of: "order-b", user: "user-2")
        try await store.save(retried)
        let reopened = try await JournalProcess.relaunch(store, on: disk)
        let archived = try await reopened.archivedOrders()
        XCTAssertEqual(archived, [completed])
        let open = try await reopened.loadOpenOrders()
        XCTAssertEqual(open.orders, [retried])
        await reopened.close()
    }

    /// The same for changes still queued, not yet written, when the flush
    /// before them fails: the store's thread drops them, acknowledged.
    func testAnArchiveQueuedBehindAFailedFlushOutlivesTheReload() async throws {
        let disk = try CrashSite.disk()
        let gate = FlushGate(), writeBack = WriteBackFailure()
        let store = try JournalProcess.openStore(SabotagedFileSystem(disk: disk, skipped: nil, gate: gate, writeBack: writeBack))
        _ = try await store.loadOpenOrders()
        let completed = TestOrders.version(2, of: "order-a", status: .completed)
        try await store.save(TestOrders.version(1, of: "order-a", status: .delivered))
        try await store.save(completed)
        // Another order still in progress: its save goes to the store's thread.
        try await store.save(TestOrders.version(1, of: "order-c"))
        gate.arm()
        writeBack.arm()
        async let failing: Void = store.save(TestOrders.version(1, of: "order-b", user: "user-2"))
        await gate.waitUntilHolding()
        try await store.archive(orderID: "order-a")
        gate.release()
        do {
            try await failing
            XCTFail("the flush did not fail")
        } catch {}

        let afterReload = try await store.archivedOrders()
        XCTAssertEqual(afterReload, [completed], "the reload forgot the archive it had acknowledged")
        let reopened = try await JournalProcess.relaunch(store, on: disk)
        let archived = try await reopened.archivedOrders()
        XCTAssertEqual(archived, [completed])
        await reopened.close()
    }

    /// A launch flushes the journal the previous process left, whose last
    /// changes (a `completed` save) may be in the page cache only. When that
    /// flush fails, the launch must not build on them regardless: an archive
    /// made durable by a later save would outlive the `completed` save and
    /// archive the `delivered` version after a power cut.
    func testALaunchWhoseFlushOfThePreviousJournalFailsDoesNotBuildOnItsUnflushedChanges() async throws {
        let disk = try CrashSite.disk()
        let previous = try JournalProcess.openStore(disk)
        _ = try await previous.loadOpenOrders()
        let completed = TestOrders.version(2, of: "order-a", status: .completed)
        try await previous.save(TestOrders.version(1, of: "order-a", status: .delivered))
        try await previous.save(completed)
        await previous.waitUntilWritten()
        await previous.abandon()

        var fileSystem = SabotagedFileSystem(disk: disk, skipped: nil)
        fileSystem.readFlushFails = true
        let store = try JournalProcess.openStore(fileSystem)
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.orders, [completed])
        XCTAssertEqual(report.problems.map(\.code), [.persistenceWriteFailed], "\(report.problems)")
        try await store.archive(orderID: "order-a")
        let other = TestOrders.version(1, of: "order-b", user: "user-2")
        try await store.save(other)

        let reopened = try await JournalProcess.relaunch(store, on: disk)
        let archived = try await reopened.archivedOrders()
        let open = try await reopened.loadOpenOrders()
        XCTAssertEqual(archived, [completed], "the archive moved a version that was never archived")
        XCTAssertEqual(open.orders, [other])
        await reopened.close()
    }
}
