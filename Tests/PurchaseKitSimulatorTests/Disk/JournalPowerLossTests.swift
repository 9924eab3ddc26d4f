import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// Crashes ``JournalOrderStore`` before and after every file-system call —
/// of its callers and of its own thread — of saves, archives, removals,
/// snapshots, launches and an import from a `FileOrderStore` folder, cuts the
/// power under several policies each, and checks that every save that
/// returned durably is there, nothing is there twice, and damage is set aside.
final class JournalPowerLossTests: XCTestCase {
    private let a1 = TestOrders.version(1, of: "order-a"), a2 = TestOrders.version(2, of: "order-a")
    private let b1 = TestOrders.version(1, of: "order-b", user: "user-2")
    private let c1 = TestOrders.version(1, of: "order-c")

    @discardableResult
    private func assertHolds(_ scenario: JournalCrashScenario, expectingCalls operations: [FileSystemError.Operation]? = nil,
                             file: StaticString = #filePath, line: UInt = #line) async -> CrashHarness<JournalProcess>.Report {
        await CrashHarness().assertHolds(scenario, expectingCalls: operations, file: file, line: line)
    }

    func testTheFirstSaveCreatesTheJournalFile() async {
        await assertHolds(JournalCrashScenario(name: "first save", setUp: [.open], steps: [.save(a1)]),
                          expectingCalls: [.create, .preallocate, .write, .synchronizeData, .synchronizeDirectory])
    }

    func testALaterSaveIsOneAppendAndOneFlush() async {
        await assertHolds(JournalCrashScenario(name: "second save", setUp: [.open, .save(a1), .save(b1)], steps: [.save(a2)]),
                          expectingCalls: [.write, .synchronizeData])
    }

    func testCreatedCompletedAndArchiveAreWrittenWithoutAFlushOfTheirOwn() async {
        let created = TestOrders.version(1, of: "order-d", status: .created)
        let completed = TestOrders.version(3, of: "order-a", status: .completed)
        await assertHolds(JournalCrashScenario(name: "unflushed", setUp: [.open, .save(a1)],
                                               steps: [.save(created), .save(completed), .archive("order-a"), .save(b1)]),
                          expectingCalls: [.write, .write, .write, .write, .synchronizeData])
    }

    func testASaveStraightIntoTheArchiveIsOneRecordFlushedWhenASaveWouldBe() async {
        // A failed payment rests at once: one record, flushed before the call returns.
        let failed = TestOrders.version(2, of: "order-a", status: .failed)
        await assertHolds(JournalCrashScenario(name: "failed into the archive", setUp: [.open, .save(a1)], steps: [.saveArchived(failed), .save(b1)]),
                          expectingCalls: [.write, .synchronizeData, .write, .synchronizeData])
        // A completed one is not flushed on its own: the durable delivered version may come back, open.
        let delivered = TestOrders.version(2, of: "order-a", status: .delivered)
        let completed = TestOrders.version(3, of: "order-a", status: .completed)
        await assertHolds(JournalCrashScenario(name: "completed into the archive", setUp: [.open, .save(delivered)],
                                               steps: [.saveArchived(completed), .save(b1)]),
                          expectingCalls: [.write, .write, .synchronizeData])
    }

    func testASaveStraightIntoTheArchiveThenALaunchAndASaveThatReopensIt() async {
        let failed = TestOrders.version(2, of: "order-a", status: .failed)
        await assertHolds(JournalCrashScenario(name: "into the archive, relaunch, reopen", setUp: [.open, .save(a1)],
                                               steps: [.saveArchived(failed), .open, .save(TestOrders.version(3, of: "order-a"))],
                                               snapshotThreshold: 2))
    }

    func testAppendsThatOutgrowTheReservedRoomReserveMore() async {
        let steps: [JournalStep] = [.save(a1), .save(b1), .archive("order-b"), .save(a2), .save(c1)]
        let report = await assertHolds(JournalCrashScenario(name: "reservations", setUp: [.open], steps: steps, reservation: 256))
        XCTAssertGreaterThanOrEqual(report.calls.filter { $0.operation == .preallocate }.count, 3, "\(report.calls)")
    }

    func testARemoval() async {
        await assertHolds(JournalCrashScenario(name: "remove", setUp: [.open, .save(a1), .save(b1)], steps: [.remove("order-a")]),
                          expectingCalls: [.write, .synchronizeData])
    }

    func testASaveThatReopensAnArchivedOrder() async {
        await assertHolds(JournalCrashScenario(name: "re-open", setUp: [.open, .save(a1), .archive("order-a")], steps: [.save(a2)]))
    }

    func testTheFirstLaunchCreatingTheStore() async {
        await assertHolds(JournalCrashScenario(name: "first launch", setUp: [], steps: [.open, .save(a1)]))
    }

    func testALaunchAfterAnUnflushedArchiveFlushesThePreviousJournal() async {
        let completed = TestOrders.version(3, of: "order-a", status: .completed)
        await assertHolds(JournalCrashScenario(name: "relaunch", setUp: [.open, .save(a1), .save(completed), .archive("order-a")],
                                               steps: [.open, .save(b1)]))
    }

    func testSnapshotsAfterEveryRecord() async {
        let steps: [JournalStep] = [.save(a1), .save(b1), .archive("order-b"), .save(a2), .remove("order-a"), .save(c1)]
        await assertHolds(JournalCrashScenario(name: "snapshots", setUp: [.open], steps: steps, snapshotThreshold: 1))
    }

    func testALaunchThatReadsASnapshotAndJournalsThenSnapshotsAgain() async {
        let setUp: [JournalStep] = [.open, .save(a1), .save(b1), .archive("order-b"), .open, .save(a2), .open]
        await assertHolds(JournalCrashScenario(name: "launch over snapshot and journals", setUp: setUp,
                                               steps: [.save(c1), .open], snapshotThreshold: 200))
    }

    func testImportingAFileOrderStoreFolder() async {
        let setUp: [JournalStep] = [.legacySave(a1), .legacySave(b1), .legacyArchive("order-b"), .legacySave(c1)]
        await assertHolds(JournalCrashScenario(name: "import", setUp: setUp, steps: [.open, .save(a2)]))
    }

    /// Orders removed after the import (one open, one archived) stay removed
    /// whatever the crash, with a snapshot holding their ids: the crash can
    /// leave the imported files behind, and the relaunch reads them again.
    func testRemovingImportedOrdersThenRelaunching() async {
        let setUp: [JournalStep] = [.legacySave(a1), .legacySave(b1), .legacyArchive("order-b"), .legacySave(c1)]
        await assertHolds(JournalCrashScenario(name: "import, remove", setUp: setUp,
                                               steps: [.open, .remove("order-a"), .remove("order-b"), .open],
                                               snapshotThreshold: 150))
    }

    /// Without a thread of its own (as the fault simulation runs it), the store
    /// makes the same calls and keeps the same promises.
    func testASequenceWithTheFileSystemCallsOnTheCallingThread() async {
        let completed = TestOrders.version(2, of: "order-b", user: "user-2", status: .completed)
        let steps: [JournalStep] = [.save(a1), .save(b1), .save(completed), .archive("order-b"), .open, .save(a2), .remove("order-a"), .save(c1)]
        var scenario = JournalCrashScenario(name: "on the calling thread", setUp: [.open], steps: steps, snapshotThreshold: 300)
        scenario.onCallingThread = true
        let report = await assertHolds(scenario)
        scenario.onCallingThread = false
        let threaded = await CrashHarness().run(scenario, crash: nil, policy: .everything)
        XCTAssertEqual(report.calls.map(\.operation), threaded.calls.map(\.operation), "the same calls, thread or not")
    }

    func testASequenceOfEverything() async {
        let steps: [JournalStep] = [
            .save(a1), .save(b1), .save(TestOrders.version(2, of: "order-b", user: "user-2", status: .completed)),
            .archive("order-b"), .open, .save(a2), .save(c1), .remove("order-c"), .open,
            .save(TestOrders.version(3, of: "order-b", user: "user-2")),
        ]
        await assertHolds(JournalCrashScenario(name: "sequence", setUp: [.open], steps: steps, snapshotThreshold: 300))
    }
}
