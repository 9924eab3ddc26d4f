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

/// The ids of removed orders, kept by the journal for good: no copy of an
/// order in files a `FileOrderStore` import left behind (unread, too large
/// for the journal, not yet deleted) brings it back, across snapshots,
/// reloads, compaction and a snapshot that lost its tail.
final class JournalRemovedIDsTests: XCTestCase {
    /// Two FileOrderStore orders whose files the import cannot delete, and o-a's file as it was.
    private func leftover(_ directory: URL) async throws -> (FaultyFileSystem, Data) {
        let legacy = try makeStore(directory)
        try await legacy.save(makeOrder("o-a", status: .delivered))
        try await legacy.save(makeOrder("o-b", createdAt: testEpoch.addingTimeInterval(1)))
        let saved = try Data(contentsOf: directory.appendingPathComponent("orders/order-o-a.json"))
        let faulty = FaultyFileSystem()
        faulty.fail(.remove, errno: EACCES, pathContains: "/orders/")
        return (faulty, saved)
    }

    /// Removed, saved again, removed again, with a snapshot after every record and without.
    func testRemoveSaveRemoveAcrossSnapshotsAndRelaunches() async throws {
        let directory = try makeTemporaryDirectory(self)
        let (faulty, saved) = try await leftover(directory)
        for threshold in [1, 1024 * 1024] {
            var store = try makeJournalStore(directory, fileSystem: faulty, snapshotThreshold: threshold)
            _ = try await store.loadOpenOrders()
            try await store.remove(orderID: "o-a")
            await store.waitUntilWritten()
            await store.close()
            store = try makeJournalStore(directory, fileSystem: faulty, snapshotThreshold: threshold)
            _ = try await store.loadOpenOrders()
            var again = makeOrder("o-a", status: .delivered)
            again.metadata = ["again": "yes"]
            try await store.save(again)
            await store.waitUntilWritten()
            await store.close()
            store = try makeJournalStore(directory, fileSystem: faulty, snapshotThreshold: threshold)
            let mid = try await store.loadOpenOrders()
            XCTAssertEqual(mid.orders.first { $0.id == "o-a" }, again)
            try await store.remove(orderID: "o-a")
            await store.waitUntilWritten()
            await store.close()
            try saved.write(to: directory.appendingPathComponent("orders/order-o-a.json"))
            for _ in 0..<2 {
                store = try makeJournalStore(directory, fileSystem: faulty, snapshotThreshold: threshold)
                let report = try await store.loadOpenOrders()
                XCTAssertEqual(report.orders.map(\.id), ["o-b"], "threshold \(threshold)")
                await store.close()
            }
        }
    }

    /// A snapshot that begins after a removal, in the same process, replaces
    /// the journal that held the removal's record: it must keep the removed
    /// id itself, or the import's leftover copy of the order comes back at
    /// the next launch.
    func testASnapshotBegunAfterARemovalInTheSameProcessKeepsTheIDRemoved() async throws {
        let directory = try makeTemporaryDirectory(self)
        let (faulty, saved) = try await leftover(directory)
        let store = try makeJournalStore(directory, fileSystem: faulty, snapshotThreshold: 1)
        _ = try await store.loadOpenOrders()
        try await store.remove(orderID: "o-a")
        try await saveUntilASnapshotBegins(store)
        await store.close()
        try saved.write(to: directory.appendingPathComponent("orders/order-o-a.json"))
        let reopened = try makeJournalStore(directory, fileSystem: faulty)
        let report = try await reopened.loadOpenOrders()
        XCTAssertFalse(report.orders.contains { $0.id == "o-a" }, "\(report.orders.map(\.id))")
        XCTAssertTrue(report.orders.contains { $0.id == "o-b" })
        await reopened.close()
    }

    func testARemovedIDSurvivesAReloadAfterAFailedWriteAndACompaction() async throws {
        let directory = try makeTemporaryDirectory(self)
        let (faulty, _) = try await leftover(directory)
        let clock = ManualClock(start: testEpoch)
        let store = try makeJournalStore(directory, fileSystem: faulty, clock: clock)
        _ = try await store.loadOpenOrders()
        try await store.remove(orderID: "o-a")
        try await store.save(makeOrder("o-c", status: .completed))
        try await store.archive(orderID: "o-c")
        try await store.flush()
        faulty.fail(.write, errno: EIO, pathContains: "/journal/")
        faulty.fail(.synchronize, errno: EIO, pathContains: "/journal/")
        faulty.fail(.synchronizeData, errno: EIO, pathContains: "/journal/")
        await assertThrows(.persistenceWriteFailed) { try await store.save(makeOrder("o-x", status: .purchased)) }
        faulty.heal()
        faulty.fail(.remove, errno: EACCES, pathContains: "/orders/")
        // Reload (re-imports), then a compaction snapshot.
        let afterReload = try await store.order(id: "o-a")
        XCTAssertNil(afterReload)
        clock.advance(by: 60 * 86_400)
        let compacted = try await store.compactArchive()
        XCTAssertEqual(compacted, 1)
        await store.close()
        let reopened = try makeJournalStore(directory, fileSystem: faulty, clock: clock)
        let report = try await reopened.loadOpenOrders()
        XCTAssertEqual(report.orders.map(\.id), ["o-b"])
        await reopened.close()
    }

    /// The import leaves an order too large for the journal in its FileOrderStore
    /// file, reported by id, and the app removes it. The journal never held it,
    /// yet keeps its id: raising the limit, as the report advises, imports the
    /// file's other orders but not this one.
    func testRemovingAnOrderTheImportLeftInItsFileKeepsItRemoved() async throws {
        let directory = try makeTemporaryDirectory(self)
        var configuration = FileOrderStore.Configuration.testing(POSIXFileSystem(), clock: ManualClock(start: testEpoch))
        configuration.maximumFileSize = 8 * 1024 * 1024
        let legacy = try FileOrderStore(directory: directory, configuration: configuration)
        var large = makeOrder("o-large", status: .delivered)
        // About 1.5 MiB: above the journal's 1 MiB record limit, so the import leaves it in its file.
        large.metadata = ["blob": String(repeating: "x", count: 1536 * 1024)]
        try await legacy.save(large)
        try await legacy.save(makeOrder("o-small", status: .purchased))

        let store = try makeJournalStore(directory)
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.orders.map(\.id), ["o-small"])
        XCTAssertEqual(report.problems.compactMap(\.orderID), ["o-large"], "\(report.problems.map(\.message))")
        // The app removes the order the report names; the call succeeds.
        try await store.remove(orderID: "o-large")
        await store.close()

        let raised = try makeJournalStore(directory, maximumRecordSize: 8 * 1024 * 1024)
        let again = try await raised.loadOpenOrders()
        let found = try await raised.order(id: "o-large")
        XCTAssertNil(found, "a removed order came back: \(again.orders.map(\.id))")
        await raised.close()
    }

    /// A snapshot that lost its tail (cut at a record boundary, from outside) is
    /// reported, and the same load imports the files left behind; the removed
    /// ids come first in a snapshot, so that a lost tail keeps them.
    func testASnapshotThatLostItsTailDoesNotLetTheImportBringBackARemovedOrder() async throws {
        let directory = try makeTemporaryDirectory(self)
        let legacy = try makeStore(directory)
        try await legacy.save(makeOrder("o-a", status: .delivered))
        try await legacy.save(makeOrder("o-b", createdAt: testEpoch.addingTimeInterval(1)))
        let faulty = FaultyFileSystem()
        faulty.fail(.remove, errno: EACCES, pathContains: "/orders/")

        // Launch 1: import (the deletion fails), then remove o-a.
        let first = try makeJournalStore(directory, fileSystem: faulty)
        _ = try await first.loadOpenOrders()
        XCTAssertEqual(names(in: directory, "orders"), ["order-o-a.json", "order-o-b.json"])
        try await first.remove(orderID: "o-a")
        await first.close()

        // Launch 2: the import again (deletion fails again): the snapshot holds o-a's tombstone.
        let second = try makeJournalStore(directory, fileSystem: faulty)
        _ = try await second.loadOpenOrders()
        await second.close()
        let snapshotName = try XCTUnwrap(journalFiles(directory).last { $0.hasPrefix("snapshot-") })
        let file = directory.appendingPathComponent("journal/\(snapshotName)")
        let bytes = try Data(contentsOf: file)
        XCTAssertNotNil(bytes.range(of: Data("o-a".utf8)), "the snapshot holds o-a's id")
        // Keep the header and the first record after it; the rest (o-b's put, the end) goes.
        let header = try XCTUnwrap(bytes.range(of: Data(JournalFrame.magic)))
        let record = try XCTUnwrap(bytes[header.upperBound...].range(of: Data(JournalFrame.magic)))
        let next = try XCTUnwrap(bytes[record.upperBound...].range(of: Data(JournalFrame.magic)))
        try bytes.prefix(upTo: next.lowerBound).write(to: file)

        // Launch 3.
        let third = try makeJournalStore(directory, fileSystem: faulty)
        let report = try await third.loadOpenOrders()
        XCTAssertTrue(report.problems.contains { $0.code == .persistenceCorrupt }, "the lost tail is reported")
        XCTAssertEqual(report.orders.map(\.id), ["o-b"], "the removed order o-a came back")
        await third.close()
    }

    /// The counterpart: an order saved again after its removal is no removed
    /// order any more. When a snapshot loses its tail, from its first order on,
    /// the copy the import left behind brings it back: a live order is never
    /// taken for a removed one.
    func testAnOrderSavedAgainAfterItsRemovalIsNotKeptAsRemovedBySnapshots() async throws {
        let directory = try makeTemporaryDirectory(self)
        let (faulty, _) = try await leftover(directory)

        // Launch 1: import (the deletion fails), remove o-a, then save it again.
        let first = try makeJournalStore(directory, fileSystem: faulty)
        _ = try await first.loadOpenOrders()
        try await first.remove(orderID: "o-a")
        var again = makeOrder("o-a", status: .delivered)
        again.metadata = ["again": "yes"]
        try await first.save(again)
        await first.close()

        // Launch 2: the import again (deletion fails again) writes a snapshot; keep it up to its first order.
        let second = try makeJournalStore(directory, fileSystem: faulty)
        let before = try await second.loadOpenOrders()
        XCTAssertEqual(before.orders.map(\.id), ["o-a", "o-b"])
        await second.close()
        let snapshotName = try XCTUnwrap(journalFiles(directory).last { $0.hasPrefix("snapshot-") })
        let file = directory.appendingPathComponent("journal/\(snapshotName)")
        let bytes = try Data(contentsOf: file)
        var cut = 0
        while cut + JournalFrame.headerSize < bytes.count, bytes[cut + JournalFrame.headerSize] != JournalRecord.Kind.put.rawValue {
            cut += JournalFrame.headerSize + (0..<4).reduce(0) { $0 | Int(bytes[cut + 4 + $1]) << (8 * $1) }
        }
        try bytes.prefix(cut).write(to: file)

        // Launch 3: both orders come back from their files.
        let third = try makeJournalStore(directory, fileSystem: faulty)
        let report = try await third.loadOpenOrders()
        XCTAssertTrue(report.problems.contains { $0.code == .persistenceCorrupt }, "the lost tail is reported")
        XCTAssertEqual(report.orders.map(\.id), ["o-a", "o-b"], "o-a was taken for a removed order")
        await third.close()
    }

    /// The import cannot read an order file (an I/O error): the order is reported
    /// and its file left for the next launch. The app removes the order in between;
    /// the next launch reads the file and skips it.
    func testRemovingAnOrderWhoseFileTheImportCouldNotReadKeepsItRemoved() async throws {
        let directory = try makeTemporaryDirectory(self)
        let legacy = try makeStore(directory)
        try await legacy.save(makeOrder("o-a", status: .delivered))
        try await legacy.save(makeOrder("o-b", createdAt: testEpoch.addingTimeInterval(1)))
        let faulty = FaultyFileSystem()
        faulty.fail(.read, errno: EIO, pathContains: "/orders/order-o-a")
        let store = try makeJournalStore(directory, fileSystem: faulty)
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.orders.map(\.id), ["o-b"])
        faulty.heal()
        try await store.remove(orderID: "o-a")
        let (reopened, again) = try await reopen(store, directory)
        XCTAssertEqual(again.orders.map(\.id), ["o-b"], "the removed order o-a came back")
        await reopened.close()
    }
}
