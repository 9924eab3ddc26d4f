import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a snapshot leaves behind when its process dies after renaming it into
/// place, before the folder was flushed: the next launch reads the snapshot
/// and deletes the journal it replaced, and a power cut at any moment of that
/// launch must not take the snapshot back while the journal is gone.
final class JournalSnapshotLeftoverTests: XCTestCase {
    private let root = URL(fileURLWithPath: "/app/store", isDirectory: true)
    private let folder = "/app/store/journal"

    /// A simulated disk holding `/app` durably, on which a process saved
    /// o-1 and o-2, then wrote a snapshot replacing their journal: renamed
    /// into place, but the flush of the folder failed, and the process died
    /// there. The power stayed on: the rename is in the page cache only.
    private func diskWithAnUnflushedSnapshot() async throws -> SimulatedDisk {
        let disk = SimulatedDisk()
        _ = try disk.makeDirectory(atPath: "/app", mode: 0o755)
        try disk.synchronizeDirectory(atPath: "/")
        let faulty = FaultyFileSystem(base: disk)
        let store = try makeJournalStore(root, fileSystem: faulty, onCallingThread: true)
        try await store.save(makeOrder("o-1"))
        try await store.save(makeOrder("o-2", createdAt: testEpoch.addingTimeInterval(1)))
        faulty.fail(.synchronizeDirectory, errno: EIO, pathContains: folder)
        let snapshot = store.state.withLock { s in store.beginSnapshot(&s) }
        store.startSnapshot(snapshot)
        await store.abandon()
        return disk
    }

    /// The open orders a launch finds on `disk`.
    private func orderIDs(on disk: SimulatedDisk) async throws -> [String] {
        let store = try makeJournalStore(root, fileSystem: disk, onCallingThread: true)
        let report = try await store.loadOpenOrders()
        await store.close()
        return report.orders.map(\.id).sorted()
    }

    func testTheLaunchMakesTheSnapshotDurableBeforeDeletingTheJournalItReplaced() async throws {
        let disk = try await diskWithAnUnflushedSnapshot()
        XCTAssertEqual(try disk.contentsOfDirectory(atPath: folder), ["log-0000000000000001", "snapshot-0000000000000002"])
        disk.powerLoss(.durableOnly)
        XCTAssertEqual(try disk.contentsOfDirectory(atPath: folder), ["log-0000000000000001"], "the rename was not durable")

        // The next launch, cut at every call, under every power loss. Many
        // seeds: among the mixes they draw is the one that takes the rename
        // back and keeps the deletion, which a folder flush in between rules out.
        let policies: [SimulatedDisk.PowerLoss] = [.durableOnly, .everything] + (1...24).map { .seeded($0) }
        var call = 1
        var fired = true
        while fired {
            fired = false
            for timing in SimulatedDisk.Timing.allCases {
                for policy in policies {
                    let disk = try await diskWithAnUnflushedSnapshot()
                    disk.crash(at: .init(call: call, timing: timing))
                    let launch = try? makeJournalStore(root, fileSystem: disk, onCallingThread: true)
                    let loaded = try? await launch?.loadOpenOrders()
                    let crashed = disk.isDown
                    await launch?.abandon()
                    if !crashed { XCTAssertEqual(loaded?.orders.map(\.id), ["o-1", "o-2"], "uncrashed launch") }
                    disk.powerLoss(policy)
                    let found = try await orderIDs(on: disk)
                    XCTAssertEqual(found, ["o-1", "o-2"], "the launch cut \(timing) call #\(call), \(policy)")
                    fired = fired || crashed
                }
            }
            call += 1
        }
        XCTAssertGreaterThan(call, 5, "the launch made its calls")
    }
}
