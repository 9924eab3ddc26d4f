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


    /// The marker, saved just before the repeated call, survived the power
    /// cut: the call waited for a flush that covers it. Closes the store.
    private func assertTheMarkerSurvived(in reopened: JournalOrderStore, file: StaticString = #filePath,
                                         line: UInt = #line) async throws {
        let marked = try await reopened.order(id: marker.id)
        XCTAssertEqual(marked, marker, "the repeated call returned before a flush that covers what came before it",
                       file: file, line: line)
        await reopened.close()
    }

    func testASpendRecordedAgainWhileTheFirstIsFlushingReturnsOnlyOnceItIsDurable() async throws {
        let disk = try CrashSite.disk()
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

        let reopened = try await JournalProcess.relaunch(store, on: disk)
        let spends = try await reopened.spends(forUser: "user-1")
        XCTAssertEqual(spends, [spend])
        try await assertTheMarkerSurvived(in: reopened)
    }

    func testAnOrderRemovedAgainReturnsOnlyOnceTheRemovalIsDurable() async throws {
        let disk = try CrashSite.disk()
        let store = try JournalProcess.openStore(disk)
        _ = try await store.loadOpenOrders()
        let removed = TestOrders.version(1, of: "order-a")
        try await store.save(removed)
        try await store.remove(orderID: removed.id)
        try await store.save(marker)
        try await store.remove(orderID: removed.id)

        let reopened = try await JournalProcess.relaunch(store, on: disk)
        let gone = try await reopened.order(id: removed.id)
        XCTAssertNil(gone)
        try await assertTheMarkerSurvived(in: reopened)
    }

    func testARemoveRepeatedWithNothingPendingCostsNoFlush() async throws {
        let disk = try CrashSite.disk()
        let store = try JournalProcess.openStore(disk)
        _ = try await store.loadOpenOrders()
        try await store.save(TestOrders.version(1, of: "order-a"))
        try await store.remove(orderID: "order-missing")
        let before = disk.calls.count
        try await store.remove(orderID: "order-missing")
        await store.waitUntilWritten()
        XCTAssertEqual(Array(disk.calls.dropFirst(before)), [], "everything before it was durable already")
        await store.close()
    }
}
