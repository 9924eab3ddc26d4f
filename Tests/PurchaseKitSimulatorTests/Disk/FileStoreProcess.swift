import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// A crash scenario of a ``FileOrderStore``.
typealias StoreCrashScenario = CrashScenario<FileStoreProcess>

extension CrashScenario where Process == FileStoreProcess {
    /// `leftovers`: leaves behind, after the set-up, what interrupted and
    /// damaged writes leave, then restarts the machine, so that the next open cleans up.
    init(name: String, setUp: [StoreStep], leftovers: Bool = false, steps: [StoreStep],
         existingFolder: String = "/var/mobile/app") {
        self.init(name: name, setUp: setUp, steps: steps, existingFolder: existingFolder,
                  options: .init(leftovers: leftovers))
    }
}

/// A simulated app process on a ``FileOrderStore``: its store, opened by `.open`.
struct FileStoreProcess: CrashProcess {
    struct Options {
        /// Plant interrupted and damaged writes after the set-up (see ``StoreLeftovers``).
        var leftovers = false
    }

    let disk: SimulatedDisk
    let fileSystem: any FileSystem
    let options: Options
    var store: FileOrderStore?

    init(disk: SimulatedDisk, fileSystem: any FileSystem, options: Options) {
        self.disk = disk
        self.fileSystem = fileSystem
        self.options = options
    }

    mutating func perform(_ step: StoreStep) async -> (any Error)? {
        do {
            switch step {
            case .open:
                let opened = try Self.openStore(fileSystem)
                _ = try await opened.loadOpenOrders()
                store = opened
            case .save(let order):
                guard let store else { return CrashStepError.notOpen }
                try await store.save(order)
            case .archive(let id):
                guard let store else { return CrashStepError.notOpen }
                try await store.archive(orderID: id)
            }
        } catch {
            return error
        }
        return nil
    }

    /// Plants the leftovers, when asked, and restarts the machine.
    mutating func finishSetUp() throws {
        guard options.leftovers else { return }
        try StoreLeftovers.plant(on: disk, root: CrashSite.root)
        disk.powerLoss(.everything)
        store = nil
    }

    /// The store has no thread of its own: nothing outlives the process's calls.
    mutating func die() async {}

    static func check(disk: SimulatedDisk, fileSystem: any FileSystem, ledger: StoreLedger, options: Options) async -> [String] {
        await StoreChecks(disk: disk, fileSystem: fileSystem, root: CrashSite.root).verify(ledger, leftovers: options.leftovers)
    }

    static func openStore(_ fileSystem: any FileSystem) throws(PurchaseKitError) -> FileOrderStore {
        try FileOrderStore(directory: URL(fileURLWithPath: CrashSite.root, isDirectory: true), fileSystem: fileSystem,
                           configuration: .init(clock: ManualClock(start: TestOrders.epoch)))
    }
}
