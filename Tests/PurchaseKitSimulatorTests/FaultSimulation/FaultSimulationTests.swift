import Foundation
import XCTest
import PurchaseKitSimulator

final class FaultSimulationTests: XCTestCase {
    /// The seeds `swift test` runs; a failing one prints the command that replays it.
    static let seedCount = 1_000

    func testEveryRuleHoldsForManySeeds() async {
        let environment = ProcessInfo.processInfo.environment
        let options: FaultSimulation.Options
        if let text = environment[FaultSimulation.seedEnvironmentVariable], let seed = UInt64(text) {
            options = FaultSimulation.Options(runs: 1, firstSeed: seed)
        } else {
            options = FaultSimulation.Options(runs: Self.seedCount, firstSeed: 1)
        }
        let report = await FaultSimulation.run(options)
        XCTAssertEqual(report.runs, options.runs)
        for failure in report.failures.prefix(10) {
            XCTFail("seed \(failure.seed) failed:\n\(failure.message)\nreplay: \(failure.replayCommand)\n"
                    + "or: \(FaultSimulation.seedEnvironmentVariable)=\(failure.seed) swift test --filter FaultSimulationTests")
        }
        if options.runs > 1 {
            // The histories reach every part of the lifecycle, the durable
            // store under power losses and the `.wait` policy included.
            for kind in ["crash", "power loss", "days pass", "billing issue", "subscription cancelled", "refund", "restore",
                         "new device", "outside purchase", "late payment", "log out", "user switch", "queued purchase",
                         "tier change at once asked", "tier change at renewal asked", "tier change of another user's tier asked"] {
                XCTAssertGreaterThan(report.faults[kind] ?? 0, 0, "no run had \(kind)")
            }
        }
        if options.runs == 1 {
            // Replaying one seed: show what happened.
            let result = await FaultSimulation.runOne(seed: options.firstSeed)
            print(result.trace.joined(separator: "\n"))
            print("seed \(result.seed) trace hash \(result.traceHash)")
        }
        print("fault simulation: \(report.runs) runs, \(report.purchases) purchases, faults \(report.faults.sorted { $0.key < $1.key }), "
              + "lost \(report.lost), duplicated \(report.duplicated), wrong user \(report.wrongUser), unfinished \(report.unfinished), "
              + "invalid transitions \(report.invalidTransitions), \(String(format: "%.1f", report.seconds)) s, trace hash \(report.traceHash)")
    }
}
