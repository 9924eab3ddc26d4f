import Foundation
import PurchaseKit
import PurchaseKitSimulator
import XCTest

/// A simulated app process driving one kind of store on a ``SimulatedDisk``:
/// the store-specific part of a ``CrashHarness``. It opens the store, makes
/// the calls a scenario names, dies, and says what a new process must find.
protocol CrashProcess {
    /// One call the process makes to its store.
    associatedtype Step: CustomStringConvertible
    /// What the store acknowledged, and so what a crash may leave of it.
    associatedtype Ledger: CrashLedger where Ledger.Step == Step
    /// How a scenario sets the store up (thresholds, damage planted before the run).
    associatedtype Options

    /// A process on `disk` whose store makes its calls through `fileSystem`
    /// (the disk, or the disk with a flush sabotaged).
    init(disk: SimulatedDisk, fileSystem: any FileSystem, options: Options)

    /// Makes one call and waits until the store has written what it queued,
    /// so that every run makes the same calls in the same order. Returns the call's error.
    mutating func perform(_ step: Step) async -> (any Error)?

    /// Runs once the set-up calls were made, before the crash is armed.
    mutating func finishSetUp() throws

    /// The process dies: nothing it started may touch the disk any more.
    mutating func die() async

    /// What a new process finds after the power loss, checked against the
    /// ledger: one line per broken promise.
    static func check(disk: SimulatedDisk, fileSystem: any FileSystem, ledger: Ledger, options: Options) async -> [String]
}

/// The bookkeeping of a ``CrashProcess``: the harness begins each call and
/// acknowledges it when it returned.
protocol CrashLedger {
    associatedtype Step
    init()
    /// Records that `step` was called and has not returned yet.
    mutating func begin(_ step: Step)
    /// Records that the call in flight returned.
    mutating func acknowledge()
}

/// A run of store calls whose every file-system call is made a crash point.
struct CrashScenario<Process: CrashProcess> {
    var name: String
    /// Calls made before, uncrashed.
    var setUp: [Process.Step]
    /// The calls whose file-system calls are enumerated.
    var steps: [Process.Step]
    /// The deepest folder that exists, durably, before the store is first opened.
    var existingFolder = "/var/mobile/app"
    var options: Process.Options
}

/// Where every scenario's store lives, and the power losses every crash point is tried under.
enum CrashSite {
    static let root = "/var/mobile/app/store"
    static let policies: [SimulatedDisk.PowerLoss] = [.durableOnly, .everything] + (1...6).map { .seeded($0) }

    /// A fresh disk holding `folder` (by default, the store's parent), durably.
    static func disk(holding folder: String = (root as NSString).deletingLastPathComponent) throws -> SimulatedDisk {
        let disk = SimulatedDisk()
        try prepare(disk, holding: folder)
        return disk
    }

    static func prepare(_ disk: SimulatedDisk, holding folder: String) throws {
        _ = try disk.makeDirectory(atPath: folder, mode: 0o755)
        var parent = folder
        while parent != "/" {
            parent = (parent as NSString).deletingLastPathComponent
            try disk.synchronizeDirectory(atPath: parent)
        }
    }
}

enum CrashStepError: Error {
    /// A call before the scenario opened the store.
    case notOpen
}

/// Crashes a store on a ``SimulatedDisk`` before and after each file-system
/// call of a scenario (the store's own thread's calls included), and after
/// the last call returned; cuts the power under each of ``CrashSite/policies``;
/// and checks what a new process finds (see ``CrashProcess/check(disk:fileSystem:ledger:options:)``).
struct CrashHarness<Process: CrashProcess> {
    /// What one enumeration ran and found.
    struct Report {
        /// The file-system calls of the uncrashed run's steps.
        var calls: [SimulatedDisk.Call] = []
        /// Crash points: before and after every call, plus "after the last call returned".
        var crashPoints = 0
        /// Runs: every crash point under every power-loss policy.
        var runs = 0
        var failures: [String] = []
    }

    /// A flush a deliberately broken store skips (see ``SabotagedFileSystem``),
    /// to show that the checks can fail.
    var sabotage: FileSystemError.Operation?

    func enumerate(_ scenario: CrashScenario<Process>) async -> Report {
        var report = Report()
        let uncrashed = await run(scenario, crash: nil, policy: .everything)
        report.calls = uncrashed.calls
        report.failures += uncrashed.failures.map { "\(scenario.name), uncrashed: \($0)" }
        var points: [SimulatedDisk.CrashPoint?] = [nil]
        for call in uncrashed.calls.indices {
            for timing in SimulatedDisk.Timing.allCases { points.append(.init(call: call + 1, timing: timing)) }
        }
        for point in points {
            report.crashPoints += 1
            for policy in CrashSite.policies {
                report.runs += 1
                let outcome = await run(scenario, crash: point, policy: policy)
                let place = point.map { "\($0) (\(uncrashed.calls[$0.call - 1]))" } ?? "after the last call returned"
                report.failures += outcome.failures.map { "\(scenario.name), \(place), \(policy): \($0)" }
            }
        }
        return report
    }

    /// One run: set up, arm the crash, make the calls until one fails, die, lose power, check.
    func run(_ scenario: CrashScenario<Process>, crash: SimulatedDisk.CrashPoint?,
             policy: SimulatedDisk.PowerLoss) async -> (calls: [SimulatedDisk.Call], failures: [String]) {
        let disk = SimulatedDisk()
        let fileSystem: any FileSystem = sabotage.map { SabotagedFileSystem(disk: disk, skipped: $0) } ?? disk
        var process = Process(disk: disk, fileSystem: fileSystem, options: scenario.options)
        var ledger = Process.Ledger()
        do {
            try CrashSite.prepare(disk, holding: scenario.existingFolder)
            for step in scenario.setUp {
                if let error = await perform(step, &process, &ledger) { return ([], ["set-up \(step) failed: \(error)"]) }
            }
            try process.finishSetUp()
        } catch {
            return ([], ["set-up failed: \(error)"])
        }
        let start = disk.calls.count
        if let crash { disk.crash(at: crash) }
        for step in scenario.steps {
            guard let error = await perform(step, &process, &ledger) else { continue }
            if crash == nil { return ([], ["\(step) failed without a crash: \(error)"]) }
            break
        }
        let calls = Array(disk.calls.dropFirst(start))
        await process.die()
        disk.powerLoss(policy)
        return (calls, await Process.check(disk: disk, fileSystem: fileSystem, ledger: ledger, options: scenario.options))
    }

    private func perform(_ step: Process.Step, _ process: inout Process, _ ledger: inout Process.Ledger) async -> (any Error)? {
        ledger.begin(step)
        if let error = await process.perform(step) { return error }
        ledger.acknowledge()
        return nil
    }
}

extension CrashHarness {
    /// Enumerates `scenario` and fails the calling test on each broken promise
    /// (the first ten), on a count of crash points or runs other than the
    /// calls make, and on calls other than `operations`, when given.
    @discardableResult
    func assertHolds(_ scenario: CrashScenario<Process>, expectingCalls operations: [FileSystemError.Operation]? = nil,
                     file: StaticString = #filePath, line: UInt = #line) async -> Report {
        let report = await enumerate(scenario)
        for failure in report.failures.prefix(10) { XCTFail(failure, file: file, line: line) }
        XCTAssertEqual(report.crashPoints, 2 * report.calls.count + 1, file: file, line: line)
        XCTAssertEqual(report.runs, report.crashPoints * CrashSite.policies.count, file: file, line: line)
        if let operations { XCTAssertEqual(report.calls.map(\.operation), operations, "\(report.calls)", file: file, line: line) }
        print("\(scenario.name): \(report.calls.count) calls, \(report.crashPoints) crash points, \(report.runs) runs")
        return report
    }
}
