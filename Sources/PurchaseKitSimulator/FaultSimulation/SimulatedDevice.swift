import Foundation
import PurchaseKit

/// Where the app on the simulated device keeps its orders: in memory, or in a
/// ``JournalOrderStore`` on a ``SimulatedDisk`` that keeps only what a power
/// loss keeps. Each process opens its own store, as an app does at launch; the
/// disk outlives processes, a reinstall does not keep it.
final class SimulatedDevice: Sendable {
    private enum Storage {
        case memory(InMemoryOrderStore)
        case disk(SimulatedDisk, JournalOrderStore?)
    }

    /// Where the store keeps its folders on the simulated disk.
    static let folder = URL(fileURLWithPath: "/app/orders")

    private let storage: Locked<Storage>
    private let clock: ManualClock
    private let log: any PurchaseLogHandler

    /// A device with no orders, on a simulated disk when `durable` (a broken
    /// one that ignores flushes when `brokenDisk`).
    init(durable: Bool, brokenDisk: Bool, clock: ManualClock, log: any PurchaseLogHandler) {
        storage = Locked(durable ? .disk(SimulatedDisk(ignoresFlushes: brokenDisk), nil) : .memory(InMemoryOrderStore()))
        self.clock = clock
        self.log = log
    }

    /// The disk, when the device keeps its orders on one.
    var disk: SimulatedDisk? {
        storage.withLock { s in
            if case .disk(let disk, _) = s { return disk }
            return nil
        }
    }

    /// The order store of a new process: the in-memory one lives on (a
    /// process death keeps it, as the system keeps a file's cache); on a disk,
    /// the store is opened anew over what the disk kept.
    ///
    /// - Throws: what opening the store throws (it prepares its folders).
    func openStore() throws -> any OrderStore {
        try storage.withLock { s throws -> any OrderStore in
            switch s {
            case .memory(let store):
                return store
            case .disk(let disk, let previous):
                // The previous process is dead: what its store had not written yet died with it.
                previous?.abandonNow()
                // Small thresholds, so that histories write snapshots and outgrow reserved room.
                var configuration = JournalOrderStore.Configuration(clock: clock, logHandler: log, snapshotThreshold: 4096)
                configuration.fileSystem = disk
                configuration.journalReservation = 4096
                // The run's executor makes every call: the store does its file work within each
                // call, so that a seed makes the same file-system calls in the same order every run.
                configuration.writesOnCallingThread = true
                let store = try JournalOrderStore(directory: Self.folder, configuration: configuration)
                s = .disk(disk, store)
                return store
            }
        }
    }

    /// Every order the current process's store holds, open and archived,
    /// oldest first (for the checks and the trace).
    func allOrders() async -> [Order] {
        switch storage.withLock({ $0 }) {
        case .memory(let store): return await store.allOrders()
        case .disk(_, let store?):
            return (try? await store.allOrders()) ?? []
        case .disk(_, nil): return []
        }
    }
}
