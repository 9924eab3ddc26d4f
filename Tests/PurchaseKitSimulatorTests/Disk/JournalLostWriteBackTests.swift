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
}
