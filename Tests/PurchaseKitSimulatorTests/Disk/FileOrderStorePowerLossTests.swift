import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// Crashes ``FileOrderStore`` before and after every file-system call of a
/// save, an archive, a re-open, the first and a later launch, and a sequence
/// of them, under several power-loss policies each, and checks that nothing
/// acknowledged is lost and nothing is half written.
final class FileOrderStorePowerLossTests: XCTestCase {
    private let a1 = TestOrders.version(1, of: "order-a"), a2 = TestOrders.version(2, of: "order-a")
    private let a3 = TestOrders.version(3, of: "order-a")
    private let b1 = TestOrders.version(1, of: "order-b", user: "user-2"), b2 = TestOrders.version(2, of: "order-b", user: "user-2")
    private let c1 = TestOrders.version(1, of: "order-c")

    private func assertHolds(_ scenario: StoreCrashScenario, expectingCalls operations: [FileSystemError.Operation]? = nil,
                             file: StaticString = #filePath, line: UInt = #line) async {
        await CrashHarness().assertHolds(scenario, expectingCalls: operations, file: file, line: line)
    }

    func testTheFirstSaveOfAnOrder() async {
        await assertHolds(StoreCrashScenario(name: "first save", setUp: [.open], steps: [.save(a1)]),
                          expectingCalls: [.create, .write, .synchronize, .close, .rename, .synchronizeDirectory])
    }

    func testASaveOverAnAcknowledgedVersion() async {
        await assertHolds(StoreCrashScenario(name: "second save", setUp: [.open, .save(a1), .save(b1)], steps: [.save(a2)]),
                          expectingCalls: [.create, .write, .synchronize, .close, .rename, .synchronizeDirectory])
    }

    func testAnArchiveMove() async {
        await assertHolds(StoreCrashScenario(name: "archive", setUp: [.open, .save(a1), .save(b1)], steps: [.archive("order-a")]),
                          expectingCalls: [.rename, .synchronizeDirectory, .synchronizeDirectory])
    }

    func testASaveThatReopensAnArchivedOrder() async {
        await assertHolds(StoreCrashScenario(name: "re-open", setUp: [.open, .save(a1), .archive("order-a")], steps: [.save(a2)]),
                          expectingCalls: [.create, .write, .synchronize, .close, .rename, .synchronizeDirectory,
                                           .remove, .synchronizeDirectory])
    }

    func testTheFirstLaunchCreatingTheStore() async {
        await assertHolds(StoreCrashScenario(name: "first launch", setUp: [], steps: [.open, .save(a1)]))
    }

    /// The store's folder and a missing parent are created: the new parent's own entry must be flushed too.
    func testTheFirstLaunchCreatingMissingParentFolders() async {
        await assertHolds(StoreCrashScenario(name: "first launch, new parents", setUp: [], steps: [.open, .save(a1)],
                                             existingFolder: "/var/mobile"))
    }

    func testALaunchThatCleansUpLeftovers() async {
        let scenario = StoreCrashScenario(
            name: "launch with leftovers", setUp: [.open, .save(a1), .save(b1), .archive("order-b"), .save(c1)],
            leftovers: true, steps: [.open])
        let report = await CrashHarness().assertHolds(scenario)
        let operations = Set(report.calls.map(\.operation))
        // The load deletes the temporary file and the stale archived copy, quarantines the torn file, and flushes.
        for operation in [FileSystemError.Operation.list, .read, .remove, .rename, .synchronizeDirectory] {
            XCTAssertTrue(operations.contains(operation), "the launch makes a \(operation.rawValue) call: \(report.calls)")
        }
    }

    func testASequenceOfSavesAndArchivesOfSeveralOrders() async {
        let steps: [StoreStep] = [.save(a1), .save(b1), .save(a2), .archive("order-a"), .save(c1), .save(b2),
                                  .archive("order-b"), .save(a3), .archive("order-c"), .open, .save(TestOrders.version(2, of: "order-c"))]
        await assertHolds(StoreCrashScenario(name: "sequence", setUp: [.open], steps: steps))
    }
}
