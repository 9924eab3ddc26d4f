import XCTest
import PurchaseKitSimulator

final class CrashPointTests: XCTestCase {
    /// Every scenario crashed before and after each write and each store or
    /// verifier call, and every pair of such crashes (the second during recovery).
    func testEveryCrashPointAndEveryPairDeliversExactlyOnce() async {
        let report = await FaultSimulation.enumerateCrashPoints()
        for failure in report.failures.prefix(20) { XCTFail(failure) }
        let consumable = report.pathCalls["consumable"] ?? []
        // The order comes to rest saved straight into the archive: one call, no archive move of its own.
        for kind in ["canMakePayments", "products", "save", "add", "verify", "finish", "save archived"] {
            XCTAssertTrue(consumable.contains(kind), "the purchase path has a \(kind) call: \(consumable)")
        }
        let pathCalls = report.pathCalls.values.reduce(0) { $0 + $1.count }
        XCTAssertEqual(report.singleCrashRuns, 2 * pathCalls, "before and after every counted call")
        XCTAssertGreaterThan(report.pairRuns, report.singleCrashRuns)
        print("crash points: \(report.singleCrashRuns) single crashes, \(report.pairRuns) pairs, "
              + "paths \(report.pathCalls.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.joined(separator: ","))" }), "
              + String(format: "%.1f s", report.seconds))
    }
}
