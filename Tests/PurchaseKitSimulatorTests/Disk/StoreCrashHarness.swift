import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// A run of store calls whose every file-system call is made a crash point.
struct StoreCrashScenario {
    var name: String
    /// Calls made before, uncrashed; what they acknowledge must survive everything.
    var setUp: [StoreStep]
    /// Leaves behind, after the set-up, what interrupted and damaged writes
    /// leave, then restarts the machine, so that the next open cleans up.
    var leftovers = false
    /// The calls whose file-system calls are enumerated.
    var steps: [StoreStep]
    /// The deepest folder that exists, durably, before the store is first opened.
    var existingFolder = "/var/mobile/app"
}

/// Crashes a ``FileOrderStore`` on a ``SimulatedDisk`` before and after each
/// file-system call of a scenario, cuts the power under several policies, and
/// checks what a new process finds.
struct StoreCrashHarness {
    /// What a deliberately broken store leaves out, to show that the checks can fail.
    enum Sabotage {
        /// Never flushes a directory: renames and creations are not durable when a save returns.
        case noDirectoryFlush
        /// Never flushes a file: a save renames data that is still only in the cache.
        case noFileFlush
    }

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

    static let root = "/var/mobile/app/store"
    static let policies: [SimulatedDisk.PowerLoss] = [.durableOnly, .everything] + (1...6).map { .seeded($0) }

    var sabotage: Sabotage?

    func enumerate(_ scenario: StoreCrashScenario) async -> Report {
        var report = Report()
        let uncrashed = await run(scenario, crash: nil, policy: .everything)
        report.calls = uncrashed.calls
        var points: [SimulatedDisk.CrashPoint?] = [nil]
        for call in uncrashed.calls.indices {
            for timing in SimulatedDisk.Timing.allCases { points.append(.init(call: call + 1, timing: timing)) }
        }
        for point in points {
            report.crashPoints += 1
            for policy in Self.policies {
                report.runs += 1
                let outcome = await run(scenario, crash: point, policy: policy)
                let place = point.map { "\($0) (\(uncrashed.calls[$0.call - 1]))" } ?? "after the last call returned"
                report.failures += outcome.failures.map { "\(scenario.name), \(place), \(policy): \($0)" }
            }
        }
        return report
    }

    /// One run: set up, arm the crash, make the calls until one fails, lose power, check.
    func run(_ scenario: StoreCrashScenario, crash: SimulatedDisk.CrashPoint?,
             policy: SimulatedDisk.PowerLoss) async -> (calls: [SimulatedDisk.Call], failures: [String]) {
        let disk = SimulatedDisk()
        let fileSystem = files(on: disk)
        var ledger = StoreLedger()
        var store: FileOrderStore?
        do {
            _ = try disk.makeDirectory(atPath: scenario.existingFolder, mode: 0o755)
            var folder = scenario.existingFolder
            while folder != "/" {
                folder = (folder as NSString).deletingLastPathComponent
                try disk.synchronizeDirectory(atPath: folder)
            }
            for step in scenario.setUp {
                if let error = await perform(step, on: &store, fileSystem, &ledger) { return ([], ["set-up \(step) failed: \(error)"]) }
            }
            if scenario.leftovers {
                try StoreLeftovers.plant(on: disk, root: Self.root)
                disk.powerLoss(.everything)
                store = nil
            }
        } catch {
            return ([], ["set-up failed: \(error)"])
        }
        let start = disk.calls.count
        if let crash { disk.crash(at: crash) }
        for step in scenario.steps {
            guard let error = await perform(step, on: &store, fileSystem, &ledger) else { continue }
            if crash == nil { return ([], ["\(step) failed without a crash: \(error)"]) }
            break
        }
        let calls = Array(disk.calls.dropFirst(start))
        disk.powerLoss(policy)
        return (calls, await StoreChecks(disk: disk, fileSystem: fileSystem, root: Self.root)
            .verify(ledger, leftovers: scenario.leftovers))
    }

    /// Makes one call, recording in the ledger what it acknowledged. Returns its error.
    private func perform(_ step: StoreStep, on store: inout FileOrderStore?, _ fileSystem: any FileSystem,
                         _ ledger: inout StoreLedger) async -> (any Error)? {
        ledger.begin(step)
        do {
            switch step {
            case .open:
                let opened = try Self.openStore(fileSystem)
                _ = try await opened.loadOpenOrders()
                store = opened
            case .save(let order):
                guard let store else { return StoreStepError.notOpen }
                try await store.save(order)
            case .archive(let id):
                guard let store else { return StoreStepError.notOpen }
                try await store.archive(orderID: id)
            }
        } catch {
            return error
        }
        ledger.acknowledge()
        return nil
    }

    static func openStore(_ fileSystem: any FileSystem) throws(PurchaseKitError) -> FileOrderStore {
        try FileOrderStore(directory: URL(fileURLWithPath: root, isDirectory: true), fileSystem: fileSystem,
                           configuration: .init(clock: ManualClock(start: TestOrders.epoch)))
    }

    private func files(on disk: SimulatedDisk) -> any FileSystem {
        switch sabotage {
        case nil: disk
        case .noDirectoryFlush: SabotagedFileSystem(disk: disk, skipped: .synchronizeDirectory)
        case .noFileFlush: SabotagedFileSystem(disk: disk, skipped: .synchronize)
        }
    }
}

enum StoreStepError: Error {
    case notOpen
}

/// The disk with one kind of flush silently skipped: a store that believes it
/// flushed but did not.
struct SabotagedFileSystem: FileSystem {
    let disk: SimulatedDisk
    let skipped: FileSystemError.Operation

    func makeDirectory(atPath path: String, mode: UInt16) throws(FileSystemError) -> Bool {
        try disk.makeDirectory(atPath: path, mode: mode)
    }
    func setPermissions(atPath path: String, mode: UInt16) throws(FileSystemError) {
        try disk.setPermissions(atPath: path, mode: mode)
    }
    func createFile(atPath path: String, mode: UInt16) throws(FileSystemError) -> Int32 {
        try disk.createFile(atPath: path, mode: mode)
    }
    func write(_ data: Data, to descriptor: Int32, path: String) throws(FileSystemError) {
        try disk.write(data, to: descriptor, path: path)
    }
    func synchronize(_ descriptor: Int32, path: String) throws(FileSystemError) {
        if skipped != .synchronize { try disk.synchronize(descriptor, path: path) }
    }
    func synchronizeData(_ descriptor: Int32, path: String) throws(FileSystemError) {
        if skipped != .synchronize, skipped != .synchronizeData { try disk.synchronizeData(descriptor, path: path) }
    }
    func preallocate(_ descriptor: Int32, length: Int, path: String) throws(FileSystemError) {
        try disk.preallocate(descriptor, length: length, path: path)
    }
    /// Skipped with `.synchronize`, or alone with `.read` (the flush of a file read back at launch).
    func synchronizeFile(atPath path: String) throws(FileSystemError) {
        if skipped != .synchronize, skipped != .read { try disk.synchronizeFile(atPath: path) }
    }
    func close(_ descriptor: Int32, path: String) throws(FileSystemError) {
        try disk.close(descriptor, path: path)
    }
    func rename(_ source: String, to destination: String) throws(FileSystemError) {
        try disk.rename(source, to: destination)
    }
    func removeFile(atPath path: String) throws(FileSystemError) -> Bool {
        try disk.removeFile(atPath: path)
    }
    func synchronizeDirectory(atPath path: String) throws(FileSystemError) {
        if skipped != .synchronizeDirectory { try disk.synchronizeDirectory(atPath: path) }
    }
    func readRegularFile(atPath path: String, maximumSize: Int) throws(FileSystemError) -> FileContents {
        try disk.readRegularFile(atPath: path, maximumSize: maximumSize)
    }
    func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] {
        try disk.contentsOfDirectory(atPath: path)
    }
}
