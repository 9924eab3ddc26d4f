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
    /// A save straight into the archive (``ArchivingOrderStore``), as the engine makes when an order comes to rest.
    case saveArchived(Order)
    case remove(String)
    /// A save through a `FileOrderStore` on the same directory (always durable).
    case legacySave(Order)
    case legacyArchive(String)

    var description: String {
        switch self {
        case .open: "open"
        case .save(let order): "save \(order.id) v\(order.metadata["version"] ?? "?") \(order.status.rawValue)"
        case .archive(let id): "archive \(id)"
        case .saveArchived(let order): "save \(order.id) v\(order.metadata["version"] ?? "?") \(order.status.rawValue) into the archive"
        case .remove(let id): "remove \(id)"
        case .legacySave(let order): "FileOrderStore save \(order.id) v\(order.metadata["version"] ?? "?")"
        case .legacyArchive(let id): "FileOrderStore archive \(id)"
        }
    }
}

/// A crash scenario of a ``JournalOrderStore``.
typealias JournalCrashScenario = CrashScenario<JournalProcess>

extension CrashScenario where Process == JournalProcess {
    /// `snapshotThreshold`: a snapshot once the journal has grown this much
    /// (1: after every record); `reservation`: the room a journal file reserves at a time.
    init(name: String, setUp: [JournalStep], steps: [JournalStep], snapshotThreshold: Int = 1 << 20,
         reservation: Int = 4096, existingFolder: String = "/var/mobile/app") {
        self.init(name: name, setUp: setUp, steps: steps, existingFolder: existingFolder,
                  options: .init(snapshotThreshold: snapshotThreshold, reservation: reservation))
    }

    /// The store makes its file-system calls on the calling thread (as in the fault simulation).
    var onCallingThread: Bool {
        get { options.onCallingThread }
        set { options.onCallingThread = newValue }
    }
}

/// A simulated app process on a ``JournalOrderStore``: its store, opened by
/// `.open`, and the `FileOrderStore` its legacy steps write through.
///
/// After each call it waits until the store's thread has written what it
/// queued, so that every run makes the same calls in the same order; when it
/// dies, its thread makes no call after the power comes back.
struct JournalProcess: CrashProcess {
    struct Options {
        var snapshotThreshold = 1 << 20
        var reservation = 4096
        var onCallingThread = false
    }

    let disk: SimulatedDisk
    let fileSystem: any FileSystem
    let options: Options
    var store: JournalOrderStore?
    var legacy: FileOrderStore?

    init(disk: SimulatedDisk, fileSystem: any FileSystem, options: Options) {
        self.disk = disk
        self.fileSystem = fileSystem
        self.options = options
    }

    mutating func perform(_ step: JournalStep) async -> (any Error)? {
        do {
            switch step {
            case .open:
                await store?.abandon()
                store = nil
                let opened = try Self.openStore(fileSystem, options)
                store = opened
                _ = try await opened.loadOpenOrders()
            case .save(let order):
                guard let store else { return CrashStepError.notOpen }
                try await store.save(order)
            case .archive(let id):
                guard let store else { return CrashStepError.notOpen }
                try await store.archive(orderID: id)
            case .saveArchived(let order):
                guard let store else { return CrashStepError.notOpen }
                try await store.saveArchived(order)
            case .remove(let id):
                guard let store else { return CrashStepError.notOpen }
                try await store.remove(orderID: id)
            case .legacySave(let order):
                legacy = try legacy ?? FileStoreProcess.openStore(disk)
                try await legacy?.save(order)
            case .legacyArchive(let id):
                legacy = try legacy ?? FileStoreProcess.openStore(disk)
                try await legacy?.archive(orderID: id)
            }
            await store?.waitUntilWritten()
        } catch {
            await store?.waitUntilWritten()
            return error
        }
        return nil
    }

    mutating func finishSetUp() throws {}

    /// The process dies, and its store's thread with it.
    mutating func die() async {
        await store?.abandon()
    }

    /// Checked on the disk itself: a new process's store flushes what it must.
    static func check(disk: SimulatedDisk, fileSystem: any FileSystem, ledger: JournalLedger, options: Options) async -> [String] {
        await JournalChecks(disk: disk, root: CrashSite.root).verify(ledger)
    }

    /// Kills the process of `store`, cuts the power keeping only what was
    /// flushed, and opens and loads a new store on the disk.
    static func relaunch(_ store: JournalOrderStore, on disk: SimulatedDisk) async throws -> JournalOrderStore {
        await store.abandon()
        disk.powerLoss(.durableOnly)
        let reopened = try openStore(disk)
        _ = try await reopened.loadOpenOrders()
        return reopened
    }

    static func openStore(_ fileSystem: any FileSystem, _ options: Options = .init()) throws(PurchaseKitError) -> JournalOrderStore {
        var configuration = JournalOrderStore.Configuration(clock: ManualClock(start: TestOrders.epoch),
                                                            snapshotThreshold: options.snapshotThreshold)
        configuration.journalReservation = options.reservation
        configuration.writesOnCallingThread = options.onCallingThread
        return try JournalOrderStore(directory: URL(fileURLWithPath: CrashSite.root, isDirectory: true), fileSystem: fileSystem,
                                     configuration: configuration)
    }
}
