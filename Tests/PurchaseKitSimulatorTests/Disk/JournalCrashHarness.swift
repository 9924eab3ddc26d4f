import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// One call a simulated process makes to a journal store (or, to set up a
/// migration, to the `FileOrderStore` that wrote the folder before).
enum JournalStep: CustomStringConvertible {
    /// Opens a new journal store on the disk and loads it, as a launch does.
    case open
    case save(Order)
    case archive(String)
    case remove(String)
    /// A save through a `FileOrderStore` on the same directory (always durable).
    case legacySave(Order)
    case legacyArchive(String)

    var description: String {
        switch self {
        case .open: "open"
        case .save(let order): "save \(order.id) v\(order.metadata["version"] ?? "?") \(order.status.rawValue)"
        case .archive(let id): "archive \(id)"
        case .remove(let id): "remove \(id)"
        case .legacySave(let order): "FileOrderStore save \(order.id) v\(order.metadata["version"] ?? "?")"
        case .legacyArchive(let id): "FileOrderStore archive \(id)"
        }
    }
}

struct JournalCrashScenario {
    var name: String
    /// Calls made before, uncrashed.
    var setUp: [JournalStep]
    /// The calls whose file-system calls are enumerated.
    var steps: [JournalStep]
    /// A snapshot once the journal has grown this much (1: after every record).
    var snapshotThreshold = 1 << 20
    /// The room a journal file reserves at a time.
    var reservation = 4096
    /// The store makes its file-system calls on the calling thread (as in the fault simulation).
    var onCallingThread = false
    var existingFolder = "/var/mobile/app"
}

/// Crashes a ``JournalOrderStore`` on a ``SimulatedDisk`` before and after
/// each file-system call of a scenario (the journal thread's calls
/// included), cuts the power under several policies, and checks what a new
/// process finds (see ``JournalChecks``).
///
/// After each call the harness waits until the store's thread has written
/// what it queued, so that every run makes the same calls in the same order.
struct JournalCrashHarness {
    struct Report {
        var calls: [SimulatedDisk.Call] = []
        var crashPoints = 0
        var runs = 0
        var failures: [String] = []
    }

    static let root = "/var/mobile/app/store"

    /// A flush a deliberately broken store skips, to show that the checks can fail.
    var sabotage: FileSystemError.Operation?

    func enumerate(_ scenario: JournalCrashScenario) async -> Report {
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
            for policy in StoreCrashHarness.policies {
                report.runs += 1
                let outcome = await run(scenario, crash: point, policy: policy)
                let place = point.map { "\($0) (\(uncrashed.calls[$0.call - 1]))" } ?? "after the last call returned"
                report.failures += outcome.failures.map { "\(scenario.name), \(place), \(policy): \($0)" }
            }
        }
        return report
    }

    func run(_ scenario: JournalCrashScenario, crash: SimulatedDisk.CrashPoint?,
             policy: SimulatedDisk.PowerLoss) async -> (calls: [SimulatedDisk.Call], failures: [String]) {
        let disk = SimulatedDisk()
        var ledger = JournalLedger()
        let fileSystem: any FileSystem = sabotage.map { SabotagedFileSystem(disk: disk, skipped: $0) } ?? disk
        var process = Process(disk: disk, fileSystem: fileSystem, threshold: scenario.snapshotThreshold, reservation: scenario.reservation,
                              onCallingThread: scenario.onCallingThread)
        do {
            _ = try disk.makeDirectory(atPath: scenario.existingFolder, mode: 0o755)
            var folder = scenario.existingFolder
            while folder != "/" {
                folder = (folder as NSString).deletingLastPathComponent
                try disk.synchronizeDirectory(atPath: folder)
            }
        } catch {
            return ([], ["set-up failed: \(error)"])
        }
        for step in scenario.setUp {
            if let error = await process.perform(step, &ledger) { return ([], ["set-up \(step) failed: \(error)"]) }
        }
        let start = disk.calls.count
        if let crash { disk.crash(at: crash) }
        for step in scenario.steps {
            guard let error = await process.perform(step, &ledger) else { continue }
            if crash == nil { return ([], ["\(step) failed without a crash: \(error)"]) }
            break
        }
        let calls = Array(disk.calls.dropFirst(start))
        // The process dies: its thread makes no call after the power comes back.
        await process.store?.abandon()
        disk.powerLoss(policy)
        return (calls, await JournalChecks(disk: disk, root: Self.root).verify(ledger))
    }

    static func openStore(_ fileSystem: any FileSystem, threshold: Int = 1 << 20, reservation: Int = 4096,
                          onCallingThread: Bool = false) throws(PurchaseKitError) -> JournalOrderStore {
        var configuration = JournalOrderStore.Configuration(clock: ManualClock(start: TestOrders.epoch), snapshotThreshold: threshold)
        configuration.journalReservation = reservation
        configuration.writesOnCallingThread = onCallingThread
        return try JournalOrderStore(directory: URL(fileURLWithPath: root, isDirectory: true), fileSystem: fileSystem,
                                     configuration: configuration)
    }

    /// The simulated app process: its store, opened by `.open`.
    struct Process {
        let disk: SimulatedDisk
        let fileSystem: any FileSystem
        let threshold: Int
        let reservation: Int
        let onCallingThread: Bool
        var store: JournalOrderStore?
        var legacy: FileOrderStore?

        init(disk: SimulatedDisk, fileSystem: any FileSystem, threshold: Int, reservation: Int, onCallingThread: Bool) {
            self.disk = disk
            self.fileSystem = fileSystem
            self.threshold = threshold
            self.reservation = reservation
            self.onCallingThread = onCallingThread
        }

        /// Makes one call and waits until the store's thread is idle. Returns the call's error.
        mutating func perform(_ step: JournalStep, _ ledger: inout JournalLedger) async -> (any Error)? {
            ledger.begin(step)
            do {
                switch step {
                case .open:
                    await store?.abandon()
                    store = nil
                    let opened = try JournalCrashHarness.openStore(fileSystem, threshold: threshold, reservation: reservation, onCallingThread: onCallingThread)
                    store = opened
                    _ = try await opened.loadOpenOrders()
                case .save(let order):
                    guard let store else { return StoreStepError.notOpen }
                    try await store.save(order)
                case .archive(let id):
                    guard let store else { return StoreStepError.notOpen }
                    try await store.archive(orderID: id)
                case .remove(let id):
                    guard let store else { return StoreStepError.notOpen }
                    try await store.remove(orderID: id)
                case .legacySave(let order):
                    legacy = try legacy ?? StoreCrashHarness.openStore(disk)
                    try await legacy?.save(order)
                case .legacyArchive(let id):
                    legacy = try legacy ?? StoreCrashHarness.openStore(disk)
                    try await legacy?.archive(orderID: id)
                }
                await store?.waitUntilWritten()
            } catch {
                await store?.waitUntilWritten()
                return error
            }
            ledger.acknowledge()
            return nil
        }
    }
}
