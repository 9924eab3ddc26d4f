import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// The enumeration can fail: a store that skips a flush loses acknowledged orders, and the checks say so.
final class PowerLossSabotageTests: XCTestCase {
    private let scenario = StoreCrashScenario(
        name: "second save", setUp: [.open, .save(TestOrders.version(1, of: "order-a"))],
        steps: [.save(TestOrders.version(2, of: "order-a")), .save(TestOrders.version(1, of: "order-b"))])

    func testSkippingTheDirectoryFlushLosesAnAcknowledgedOrder() async {
        let report = await CrashHarness(sabotage: .synchronizeDirectory).enumerate(scenario)
        // Without any directory flush even the set-up's order is not durable.
        XCTAssertTrue(report.failures.contains { $0.contains("order order-a is missing — an acknowledged order was lost") },
                      "\(report.failures.prefix(5))")
        XCTAssertTrue(report.failures.contains { $0.contains("order order-b is missing — an acknowledged order was lost") })
        // A process crash alone loses nothing: the failures all come from power losses that drop unflushed changes.
        XCTAssertFalse(report.failures.contains { $0.contains("everything kept") }, "\(report.failures.prefix(5))")
    }

    func testRenamingUnflushedDataLosesOrTearsAnAcknowledgedOrder() async {
        let report = await CrashHarness(sabotage: .synchronize).enumerate(scenario)
        XCTAssertTrue(report.failures.contains { $0.contains("an acknowledged order was lost") }, "\(report.failures.prefix(5))")
        // The torn file is set aside and reported, so the loss shows as a missing order, not a crash.
        XCTAssertFalse(report.failures.contains { $0.contains("did not open") }, "\(report.failures.prefix(5))")
        XCTAssertFalse(report.failures.contains { $0.contains("everything kept") }, "\(report.failures.prefix(5))")
    }
}

/// The journal's enumeration can fail too: each flush it makes is needed.
final class JournalSabotageTests: XCTestCase {
    private let a1 = TestOrders.version(1, of: "order-a"), b1 = TestOrders.version(1, of: "order-b")

    private func failures(skipping operation: FileSystemError.Operation, _ scenario: JournalCrashScenario) async -> [String] {
        await CrashHarness(sabotage: operation).enumerate(scenario).failures
    }

    func testSkippingTheDataFlushLosesAnAcknowledgedSave() async {
        let found = await failures(skipping: .synchronizeData, JournalCrashScenario(name: "no fdatasync", setUp: [.open], steps: [.save(a1), .save(b1)]))
        XCTAssertTrue(found.contains { $0.contains("an acknowledged order was lost") }, "\(found.prefix(5))")
        XCTAssertFalse(found.contains { $0.contains("everything kept") }, "\(found.prefix(5))")
    }

    func testSkippingTheDirectoryFlushLosesTheNewJournalFile() async {
        let found = await failures(skipping: .synchronizeDirectory, JournalCrashScenario(name: "no directory flush", setUp: [.open], steps: [.save(a1)]))
        XCTAssertTrue(found.contains { $0.contains("order order-a is missing — an acknowledged order was lost") }, "\(found.prefix(5))")
    }

    func testSkippingTheRelaunchFlushLetsANewerRecordOutliveAnOlderOne() async {
        let completed = TestOrders.version(3, of: "order-a", status: .completed)
        let scenario = JournalCrashScenario(name: "no relaunch flush", setUp: [.open, .save(a1), .save(completed), .archive("order-a")],
                                            steps: [.open, .save(b1)])
        let found = await failures(skipping: .read, scenario)
        XCTAssertTrue(found.contains { $0.contains("order order-a is version 1, open") }, "\(found.prefix(5))")
    }
}
