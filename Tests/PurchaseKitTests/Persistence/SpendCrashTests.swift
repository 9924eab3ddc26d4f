import Foundation
import XCTest
@_spi(Testing) @testable import PurchaseKit
import PurchaseKitSimulator

/// A power loss at every file-system call of a spend, on the simulated disk,
/// then a relaunch: the spend is there whole or not at all, a spend that
/// returned is always there, and the retry with its id ends with exactly one spend.
final class SpendCrashTests: XCTestCase {
    private enum Kind: String, CaseIterable { case journal, file }

    func testAPowerLossAtEveryCallOfASpendLeavesItWholeOrAbsent() async throws {
        for kind in Kind.allCases {
            let (calls, runs) = try await enumeratePowerLosses { point, policy in
                try await runSpend(kind, crashingAt: point, policy: policy)
            }
            XCTAssertGreaterThan(calls, 1, "\(kind): a spend writes and flushes through the disk")
            print("power loss during a spend (\(kind) store): \(calls) calls, \(runs) runs")
        }
    }

    private func openStore(_ kind: Kind, _ disk: any FileSystem, _ world: World) throws -> any OrderStore {
        let directory = URL(fileURLWithPath: "/app/orders", isDirectory: true)
        switch kind {
        case .journal:
            var configuration = JournalOrderStore.Configuration(clock: world.clock)
            configuration.writesOnCallingThread = true
            return try JournalOrderStore(directory: directory, fileSystem: disk, configuration: configuration)
        case .file:
            return try FileOrderStore(directory: directory, fileSystem: disk, configuration: .init(clock: world.clock))
        }
    }

    /// One spend with the crash armed; returns whether it fired.
    private func runSpend(_ kind: Kind, crashingAt point: SimulatedDisk.CrashPoint, policy: SimulatedDisk.PowerLoss) async throws -> Bool {
        let label = "\(kind), crash \(point), \(policy)"
        let world = World()
        let disk = SimulatedDisk()
        _ = try disk.makeDirectory(atPath: "/app", mode: 0o755)
        try disk.synchronizeDirectory(atPath: "/")
        let first = try openStore(kind, disk, world)
        let engine = try await world.engine(world.configuration(store: first))
        _ = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: 5)
        await engine.waitUntilIdle()
        await (first as? JournalOrderStore)?.waitUntilWritten()

        disk.crash(at: point)
        let returned = try? await engine.spend(2, of: Catalog.coins, user: "alice", spendID: "s")
        let fired = disk.isDown
        await (first as? JournalOrderStore)?.abandon()
        disk.powerLoss(policy)

        let store = try openStore(kind, disk, world)
        let relaunched = try await world.engine(world.configuration(store: store))
        let balance = try await relaunched.consumableBalance(user: "alice")[Catalog.coins]
        let spends = try await relaunched.spends(user: "alice")
        if let returned {
            XCTAssertEqual(spends, [returned], "\(label): a spend that returned is durable")
        }
        XCTAssertTrue(spends.isEmpty || spends.map(\.id) == ["s"], "\(label): \(spends)")
        XCTAssertEqual(balance, spends.isEmpty ? 5 : 3, label)
        let retry = try await relaunched.spend(2, of: Catalog.coins, user: "alice", spendID: "s")
        XCTAssertEqual(retry.balanceAfter, 3, label)
        let after = try await relaunched.consumableBalance(user: "alice")[Catalog.coins]
        XCTAssertEqual(after, 3, "\(label): exactly one spend in the end")
        await (store as? JournalOrderStore)?.close()
        return fired
    }
}
