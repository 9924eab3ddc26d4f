import XCTest
import PurchaseKitSimulator

final class CrashPointTests: XCTestCase {
    /// Every scenario crashed before and after each write and each store or
    /// verifier call, and every pair of such crashes (the second during recovery).
    func testEveryCrashPointAndEveryPairDeliversExactlyOnce() async {
        let report = await FaultSimulation.enumerateCrashPoints()
        for failure in report.failures.prefix(20) { XCTFail(failure) }
        // The order comes to rest saved straight into the archive (one call), or saved, then archived.
        let consumable = report.pathCalls["consumable"] ?? []
        XCTAssertEqual(consumable, ["canMakePayments", "products", "save", "save", "add", "save", "verify", "save", "finish", "save archived"])
        let twoCalls = report.pathCalls["consumable, saved then archived"] ?? []
        XCTAssertEqual(twoCalls, ["canMakePayments", "products", "save", "save", "add", "save", "verify", "save", "finish", "save", "archive"])
        let pathCalls = report.pathCalls.values.reduce(0) { $0 + $1.count }
        XCTAssertEqual(report.singleCrashRuns, 2 * pathCalls, "before and after every counted call")
        XCTAssertGreaterThan(report.pairRuns, report.singleCrashRuns)
        print("crash points: \(report.singleCrashRuns) single crashes, \(report.pairRuns) pairs, "
              + "paths \(report.pathCalls.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.joined(separator: ","))" }), "
              + String(format: "%.1f s", report.seconds))
    }
}
