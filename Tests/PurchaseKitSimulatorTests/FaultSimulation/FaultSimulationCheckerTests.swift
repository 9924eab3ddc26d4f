import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// The simulation replays, and its checks can fail.
final class FaultSimulationCheckerTests: XCTestCase {
    /// Replays with every core kept busy by other threads: a run's
    /// interleaving must come from its seed, not from the scheduler.
    func testTheSameSeedGivesTheSameTrace() async {
        let load = BusyThreads(count: max(2, ProcessInfo.processInfo.activeProcessorCount))
        defer { load.stop() }
        for seed: UInt64 in [3, 17, 42, 99, 256] {
            let first = await FaultSimulation.runOne(seed: seed)
            let second = await FaultSimulation.runOne(seed: seed)
            XCTAssertFalse(first.trace.isEmpty)
            XCTAssertEqual(first.trace, second.trace, "seed \(seed)")
            XCTAssertEqual(first.traceHash, second.traceHash, "seed \(seed)")
        }
        let many = FaultSimulation.Options(runs: 150, firstSeed: 800)
        let firstReport = await FaultSimulation.run(many)
        let secondReport = await FaultSimulation.run(many)
        XCTAssertEqual(firstReport.traceHash, secondReport.traceHash, "150 seeds replay the same traces")
        let other = await FaultSimulation.runOne(seed: 4)
        let three = await FaultSimulation.runOne(seed: 3)
        XCTAssertNotEqual(other.traceHash, three.traceHash, "different seeds make different histories")
    }

    func testAVerifierThatDeliversWithoutCreditingIsCaught() async {
        var options = FaultSimulation.Options(runs: 30, firstSeed: 1)
        options.sabotage = .deliversWithoutCredit
        let report = await FaultSimulation.run(options)
        XCTAssertGreaterThan(report.lost, 0)
        XCTAssertFalse(report.failures.isEmpty)
        let failure = report.failures.first
        XCTAssertEqual(failure?.replayCommand, "swift run purchasekit-demo chaos --runs 1 --seed \(failure?.seed ?? 0)")
    }

    func testAStoreThatDropsSavesIsCaught() async {
        var options = FaultSimulation.Options(runs: 30, firstSeed: 1)
        options.sabotage = .dropsDeliveredSaves
        let report = await FaultSimulation.run(options)
        XCTAssertFalse(report.failures.isEmpty)
        XCTAssertGreaterThan(report.lost + report.unfinished + report.entitlementViolations, 0)
    }

    func testADiskThatIgnoresFlushesIsCaught() async {
        // Every run keeps its orders in a JournalOrderStore on a disk whose
        // flushes do nothing: the power losses after crashes take orders the
        // store reported saved, and the checks must see it.
        var options = FaultSimulation.Options(runs: 40, firstSeed: 1)
        options.sabotage = .diskIgnoresFlushes
        let report = await FaultSimulation.run(options)
        XCTAssertFalse(report.failures.isEmpty)
        XCTAssertGreaterThan(report.lost + report.duplicated + report.wrongUser + report.unfinished + report.entitlementViolations, 0)
    }

    func testAReportAddsUpItsRuns() async {
        let report = await FaultSimulation.run(FaultSimulation.Options(runs: 5, firstSeed: 10, maximumPurchases: 3))
        XCTAssertEqual(report.runs, 5)
        XCTAssertGreaterThanOrEqual(report.purchases, 5)
        XCTAssertLessThanOrEqual(report.purchases, 15)
        XCTAssertTrue(report.failures.isEmpty)
        XCTAssertEqual(report.traceHash.count, 16)
    }
}

/// Threads that spin until stopped, to keep every core busy during a test.
final class BusyThreads: Sendable {
    private let stopped = Locked(false)

    init(count: Int) {
        for _ in 0..<count {
            let thread = Thread { [stopped] in
                var spins: UInt64 = 0
                while true {
                    spins &+= 1
                    if spins % 4096 == 0, stopped.withLock({ $0 }) { return }
                }
            }
            thread.start()
        }
    }

    func stop() {
        stopped.withLock { $0 = true }
    }
}
