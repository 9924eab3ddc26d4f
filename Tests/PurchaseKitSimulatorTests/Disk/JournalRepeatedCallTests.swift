import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// A durable call that finds its change already made (a spend recorded
/// again, an order removed again) writes nothing, but must not return before
/// that change is durable: the call that made it may still be waiting for
/// its flush. The journal keeps records in order, so the calls here wait for
/// a flush that covers everything queued before them; a `completed` save,
/// which is written without a flush of its own, marks whether that flush
/// happened.
final class JournalRepeatedCallTests: XCTestCase {
    private let marker = TestOrders.version(3, of: "order-marker", status: .completed)

    /// A disk holding the store's parent folder, durably.
    private func freshDisk() throws -> SimulatedDisk {
        let disk = SimulatedDisk()
        var folder = (CrashSite.root as NSString).deletingLastPathComponent
        _ = try disk.makeDirectory(atPath: folder, mode: 0o755)
        while folder != "/" {
            folder = (folder as NSString).deletingLastPathComponent
            try disk.synchronizeDirectory(atPath: folder)
        }
        return disk
    }

    /// Kills the process, cuts the power keeping only what was flushed, and opens the store again.
    private func relaunch(_ store: JournalOrderStore, on disk: SimulatedDisk) async throws -> JournalOrderStore {
        await store.abandon()
        disk.powerLoss(.durableOnly)
        let reopened = try JournalProcess.openStore(disk)
        _ = try await reopened.loadOpenOrders()
        return reopened
    }

    func testASpendRecordedAgainWhileTheFirstIsFlushingReturnsOnlyOnceItIsDurable() async throws {
        let disk = try freshDisk()
        let gate = FlushGate()
        let store = try JournalProcess.openStore(SabotagedFileSystem(disk: disk, skipped: nil, gate: gate))
        _ = try await store.loadOpenOrders()
        let spend = ConsumableSpend(id: "spend-1", userID: "user-1", balanceKey: "coins", amount: 2,
                                    date: TestOrders.epoch, balanceAfter: 3)

        gate.arm()
        // A spend is flushed by the store's thread, which the gate now holds.
        let first = Task { try await store.recordSpend(spend) }
        await gate.waitUntilHolding()
        try await store.save(marker)
        let again = Task { try await store.recordSpend(spend) }
        gate.release()
        let firstAnswer = try await first.value
        let againAnswer = try await again.value
        XCTAssertEqual(firstAnswer, spend)
        XCTAssertEqual(againAnswer, spend, "the stored spend, as the first call saved it")

        let reopened = try await relaunch(store, on: disk)
        let spends = try await reopened.spends(forUser: "user-1")
        XCTAssertEqual(spends, [spend])
        let marked = try await reopened.order(id: marker.id)
        XCTAssertEqual(marked, marker, "the second call returned before a flush that covers what came before it")
        await reopened.close()
    }

    func testAnOrderRemovedAgainReturnsOnlyOnceTheRemovalIsDurable() async throws {
        let disk = try freshDisk()
        let store = try JournalProcess.openStore(disk)
        _ = try await store.loadOpenOrders()
        let removed = TestOrders.version(1, of: "order-a")
        try await store.save(removed)
        try await store.remove(orderID: removed.id)
        try await store.save(marker)
        try await store.remove(orderID: removed.id)

        let reopened = try await relaunch(store, on: disk)
        let gone = try await reopened.order(id: removed.id)
        XCTAssertNil(gone)
        let marked = try await reopened.order(id: marker.id)
        XCTAssertEqual(marked, marker, "the second removal returned before a flush that covers what came before it")
        await reopened.close()
    }

    func testAMissingOrderRemovedWithNothingPendingCostsNoFlush() async throws {
        let disk = try freshDisk()
        let store = try JournalProcess.openStore(disk)
        _ = try await store.loadOpenOrders()
        try await store.save(TestOrders.version(1, of: "order-a"))
        let before = disk.calls.count
        try await store.remove(orderID: "order-missing")
        await store.waitUntilWritten()
        XCTAssertEqual(Array(disk.calls.dropFirst(before)), [], "everything before it was durable already")
        await store.close()
    }
}
