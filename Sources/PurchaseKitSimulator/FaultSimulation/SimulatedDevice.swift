import Foundation
import PurchaseKit

/// Where the app on the simulated device keeps its orders: in memory, or in a
/// ``FileOrderStore`` on a ``SimulatedDisk`` that keeps only what a power loss
/// keeps. Each process opens its own store, as an app does at launch; the
/// disk outlives processes, a reinstall does not keep it.
final class SimulatedDevice: Sendable {
    private enum Storage {
        case memory(InMemoryOrderStore)
        case disk(SimulatedDisk, FileOrderStore?)
    }

    /// Where the store keeps its folders on the simulated disk.
    static let folder = URL(fileURLWithPath: "/app/orders")

    private let storage: Locked<Storage>
    /// The orders the last look at the disk store found, to spare reading
    /// every archived file again at every step.
    private let lastSeen = Locked<[String: Order]>([:])
    private let clock: ManualClock
    private let log: any LogHandler

    /// A device with no orders, on a simulated disk when `durable` (a broken
    /// one that ignores flushes when `brokenDisk`).
    init(durable: Bool, brokenDisk: Bool, clock: ManualClock, log: any LogHandler) {
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
            case .disk(let disk, _):
                var configuration = FileOrderStore.Configuration(clock: clock, logHandler: log)
                configuration.fileSystem = disk
                let store = try FileOrderStore(directory: Self.folder, configuration: configuration)
                s = .disk(disk, store)
                lastSeen.withLock { $0 = [:] }
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
            guard let orders = try? await store.allOrders(reusing: lastSeen.withLock({ $0 })) else { return [] }
            lastSeen.withLock { $0 = Dictionary(orders.map { ($0.id, $0) }, uniquingKeysWith: { $1 }) }
            return orders
        case .disk(_, nil): return []
        }
    }
}
