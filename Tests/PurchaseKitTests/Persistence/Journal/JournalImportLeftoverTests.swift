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

/// What a `FileOrderStore` import leaves behind when its deletions fail, are
/// cut short or are lost to a power cut: the next launch reads those files
/// again, and must neither bring back what was removed since nor lose what
/// it could not read.
final class JournalImportLeftoverTests: XCTestCase {
    private let root = URL(fileURLWithPath: "/app/store", isDirectory: true)

    /// A simulated disk holding `/app` durably, and a FileOrderStore's orders in `/app/store`.
    private func legacyDisk(orders: [Order], archiving archived: [String] = []) async throws -> SimulatedDisk {
        let disk = SimulatedDisk()
        _ = try disk.makeDirectory(atPath: "/app", mode: 0o755)
        try disk.synchronizeDirectory(atPath: "/")
        let legacy = try FileOrderStore(directory: root, configuration: .testing(disk, clock: ManualClock(start: testEpoch)))
        for order in orders { try await legacy.save(order) }
        for id in archived { try await legacy.archive(orderID: id) }
        return disk
    }

    /// After a power cut, the orders a new launch finds.
    private func orderIDsAfterAPowerCut(_ store: JournalOrderStore, _ disk: SimulatedDisk) async throws -> [String] {
        await store.abandon()
        disk.powerLoss(.durableOnly)
        let reopened = try makeJournalStore(root, fileSystem: disk)
        let report = try await reopened.loadOpenOrders()
        let archived = try await reopened.orders(forUser: "user-1").filter { !report.orders.contains($0) }
        await reopened.close()
        return (report.orders + archived).map(\.id).sorted()
    }

    func testAnOrderRemovedAfterAnUnflushedDeletionStaysRemovedAfterAPowerCut() async throws {
        let disk = try await legacyDisk(orders: [makeOrder("o-a"), makeOrder("o-b", createdAt: testEpoch.addingTimeInterval(1))])
        // The deletion happens, but the flush of the folder fails (only logged).
        let faulty = FaultyFileSystem(base: disk)
        faulty.fail(.synchronizeDirectory, errno: EIO, pathContains: "/store/orders")
        let store = try makeJournalStore(root, fileSystem: faulty)
        let first = try await store.loadOpenOrders()
        XCTAssertEqual(first.orders.map(\.id), ["o-a", "o-b"])
        XCTAssertEqual(try disk.contentsOfDirectory(atPath: "/app/store/orders"), [], "deleted, not durably")
        faulty.heal()
        try await store.remove(orderID: "o-a")

        let found = try await orderIDsAfterAPowerCut(store, disk)
        XCTAssertEqual(found, ["o-b"], "the file came back with the power cut; the removed order did not")
    }

    func testAnOrderWhoseFileWentBeforeADeletionFailedStaysRemovedAfterAPowerCut() async throws {
        let disk = try await legacyDisk(orders: [makeOrder("o-a"), makeOrder("o-b", createdAt: testEpoch.addingTimeInterval(1),
                                                                              status: .completed)],
                                        archiving: ["o-b"])
        // o-a's file goes (not durably), then o-b's deletion fails and the rest is skipped.
        let faulty = FaultyFileSystem(base: disk)
        faulty.fail(.remove, errno: EACCES, pathContains: "/archive/")
        let store = try makeJournalStore(root, fileSystem: faulty)
        _ = try await store.loadOpenOrders()
        XCTAssertEqual(try disk.contentsOfDirectory(atPath: "/app/store/orders"), [])
        XCTAssertEqual(try disk.contentsOfDirectory(atPath: "/app/store/archive"), ["order-o-b.json"])
        faulty.heal()
        try await store.remove(orderID: "o-a")

        let found = try await orderIDsAfterAPowerCut(store, disk)
        XCTAssertEqual(found, ["o-b"])
    }

    func testRemovedCompactedOrdersOfALeftoverLedgerSegmentStayRemoved() async throws {
        let directory = try makeTemporaryDirectory(self)
        let clock = ManualClock(start: testEpoch)
        let legacy = try FileOrderStore(directory: directory, configuration: .testing(POSIXFileSystem(), clock: clock))
        try await legacy.save(makeOrder("o-kept", status: .purchased))
        for id in ["o-1", "o-2"] {
            var old = makeOrder(id, createdAt: testEpoch.addingTimeInterval(-90 * 86_400), status: .completed)
            old.updatedAt = testEpoch.addingTimeInterval(-60 * 86_400)
            try await legacy.save(old)
            try await legacy.archive(orderID: id)
        }
        let compacted = try await legacy.compactArchive()
        XCTAssertEqual(compacted, 2)
        let disk = FaultyFileSystem()
        disk.fail(.remove, errno: EACCES, pathContains: "/ledger/")
        let store = try makeJournalStore(directory, fileSystem: disk, clock: clock)
        _ = try await store.loadOpenOrders()
        XCTAssertEqual(names(in: directory, "ledger"), ["segment-000001.tsv"], "its deletion failed")
        disk.heal()
        async let first: Void = store.remove(orderID: "o-1")
        async let second: Void = store.remove(orderID: "o-2")
        _ = try await (first, second)

        let (reopened, report) = try await reopen(store, directory)
        XCTAssertEqual(report.orders.map(\.id), ["o-kept"])
        let one = try await reopened.order(id: "o-1")
        let two = try await reopened.order(id: "o-2")
        XCTAssertNil(one, "o-1 came back from the ledger segment")
        XCTAssertNil(two, "o-2 came back from the ledger segment")
        XCTAssertEqual(names(in: directory, "ledger"), [], "the segment went once every id in it was held or removed")
        // The removed ids outlive the snapshot that the reopening wrote.
        let (again, _) = try await reopen(reopened, directory)
        let oneAgain = try await again.order(id: "o-1")
        XCTAssertNil(oneAgain)
        await again.close()
    }

    func testAnOrderSavedAgainAfterItsRemovalIsImportedNoMoreThanAnyOther() async throws {
        let directory = try makeTemporaryDirectory(self)
        let legacy = try makeStore(directory)
        let original = makeOrder("o-1", status: .purchased)
        try await legacy.save(original)
        let saved = try Data(contentsOf: directory.appendingPathComponent("orders/order-o-1.json"))
        let store = try makeJournalStore(directory)
        _ = try await store.loadOpenOrders()
        try await store.remove(orderID: "o-1")
        var again = makeOrder("o-1", status: .delivered)
        again.metadata = ["again": "yes"]
        try await store.save(again)
        // An old copy of the file turns up: the journal's version wins, as for any order it holds.
        try saved.write(to: directory.appendingPathComponent("orders/order-o-1.json"))
        let (reopened, report) = try await reopen(store, directory)
        XCTAssertEqual(report.orders, [again])
        await reopened.close()
    }

    func testAnOrderFileAboveTheDefaultSizeStaysInPlaceUntilTheLimitAllowsIt() async throws {
        let directory = try makeTemporaryDirectory(self)
        var configuration = FileOrderStore.Configuration.testing(POSIXFileSystem(), clock: ManualClock(start: testEpoch))
        configuration.maximumFileSize = 8 * 1024 * 1024
        let legacy = try FileOrderStore(directory: directory, configuration: configuration)
        var large = makeOrder("o-large", status: .purchased)
        large.metadata = ["blob": String(repeating: "x", count: 3 * 1024 * 1024)]
        try await legacy.save(large)

        let store = try makeJournalStore(directory)
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.orders, [])
        XCTAssertEqual(report.problems.map(\.orderID), ["o-large"], "\(report.problems.map(\.message))")
        XCTAssertEqual(names(in: directory, "orders"), ["order-o-large.json"], "left in place, not set aside")
        await store.close()
        let raised = try makeJournalStore(directory, maximumRecordSize: 8 * 1024 * 1024)
        let again = try await raised.loadOpenOrders()
        XCTAssertEqual(again.orders, [large])
        await raised.close()
    }

    func testLookupsThatFindNothingAreNoAnswerWhileAnOrderFileIsUnreadOrTooLarge() async throws {
        let directory = try makeTemporaryDirectory(self)
        let legacy = try makeStore(directory)
        try await legacy.save(makeOrder("o-kept", transactionID: "t-kept"))
        try await legacy.save(makeOrder("o-unread", transactionID: "t-unread"))
        let disk = FaultyFileSystem()
        disk.fail(.read, errno: EIO, pathContains: "/orders/order-o-unread")
        let store = try makeJournalStore(directory, fileSystem: disk)
        _ = try await store.loadOpenOrders()
        disk.heal()
        let kept = try await store.order(transactionID: "t-kept")
        XCTAssertEqual(kept?.id, "o-kept", "what the journal holds is answered")
        // The unread order may be the one asked for: "none" would let the engine credit its payment to someone else.
        await assertThrows(.persistenceReadFailed) { _ = try await store.order(transactionID: "t-unread") }
        await assertThrows(.persistenceReadFailed) { _ = try await store.order(token: "o-unread") }

        let (reopened, _) = try await reopen(store, directory)
        let read = try await reopened.order(transactionID: "t-unread")
        XCTAssertEqual(read?.id, "o-unread", "imported at the next launch")
        let none = try await reopened.order(token: "nobody's")
        XCTAssertNil(none, "with every file read, none is an answer again")
        await reopened.close()

        var large = makeOrder("o-large", transactionID: "t-large")
        large.metadata = ["blob": String(repeating: "x", count: 4096)]
        try await makeStore(directory).save(large)
        let small = try makeJournalStore(directory, maximumRecordSize: 1024)
        _ = try await small.loadOpenOrders()
        await assertThrows(.persistenceReadFailed) { _ = try await small.order(transactionID: "t-large") }
        await small.close()
    }

    func testARenewalsFileTheImportCannotReadStaysForTheNextLaunch() async throws {
        let directory = try makeTemporaryDirectory(self)
        let legacy = try makeStore(directory)
        try await legacy.save(makeOrder("o-1", status: .purchased))
        let record = RenewalStateRecord(userID: "user-1", originalTransactionID: "t-orig", state: .expired, asOf: testEpoch)
        try await legacy.saveRenewalState(record)
        let disk = FaultyFileSystem()
        disk.fail(.read, errno: EIO, pathContains: "/renewals/")
        let store = try makeJournalStore(directory, fileSystem: disk)
        _ = try await store.loadOpenOrders()
        disk.heal()
        let (reopened, _) = try await reopen(store, directory)
        let states = try await reopened.renewalStates(forUser: "user-1")
        XCTAssertEqual(states, [record])
        XCTAssertEqual(names(in: directory, "renewals"), [], "read at the second launch, then deleted")
        await reopened.close()
    }

    func testASpendsFileTheImportCannotReadIsNotAnsweredWithoutUntilItIsRead() async throws {
        let directory = try makeTemporaryDirectory(self)
        let legacy = try makeStore(directory)
        try await legacy.save(makeOrder("o-1", status: .purchased))
        let spent = ConsumableSpend(id: "s-1", userID: "user-1", balanceKey: "coins", amount: 5, date: testEpoch, balanceAfter: 0)
        _ = try await legacy.recordSpend(spent)
        let other = ConsumableSpend(id: "s-2", userID: "user-2", balanceKey: "coins", amount: 1, date: testEpoch, balanceAfter: 2)
        _ = try await legacy.recordSpend(other)
        let disk = FaultyFileSystem()
        disk.fail(.read, errno: EIO, pathContains: "/spends/order-user-1")
        let store = try makeJournalStore(directory, fileSystem: disk)
        let report = try await store.loadOpenOrders()
        XCTAssertTrue(report.problems.contains { $0.code == .persistenceCorrupt }, "the unread file is reported")
        disk.heal()

        // A balance without the user's spends would let them spend the same coins again.
        await assertThrows(.persistenceCorrupt) { _ = try await store.spends(forUser: "user-1") }
        let again = ConsumableSpend(id: "s-3", userID: "user-1", balanceKey: "coins", amount: 5, date: testEpoch, balanceAfter: 0)
        await assertThrows(.persistenceCorrupt) { _ = try await store.recordSpend(again) }
        let others = try await store.spends(forUser: "user-2")
        XCTAssertEqual(others, [other], "other users' spends are answered")

        let (reopened, _) = try await reopen(store, directory)
        let spends = try await reopened.spends(forUser: "user-1")
        XCTAssertEqual(spends, [spent], "read at the next launch")
        XCTAssertEqual(names(in: directory, "spends"), [])
        await reopened.close()
    }

    func testLeftoverTemporaryFilesOfSpendsAndRenewalsGoWithTheImport() async throws {
        let directory = try makeTemporaryDirectory(self)
        let legacy = try makeStore(directory)
        try await legacy.save(makeOrder("o-1", status: .purchased))
        _ = try await legacy.recordSpend(ConsumableSpend(id: "s-1", userID: "user-1", balanceKey: "coins", amount: 5,
                                                          date: testEpoch, balanceAfter: 0))
        try await legacy.saveRenewalState(RenewalStateRecord(userID: "user-1", originalTransactionID: "t-orig",
                                                             state: .expired, asOf: testEpoch))
        for folder in ["spends", "renewals"] {
            try Data("[".utf8).write(to: directory.appendingPathComponent(folder + "/" + FileNameCoding.temporaryName()))
        }
        let store = try makeJournalStore(directory)
        _ = try await store.loadOpenOrders()
        let spends = try await store.spends(forUser: "user-1")
        XCTAssertEqual(spends.map(\.id), ["s-1"])
        XCTAssertEqual(names(in: directory, "spends"), [])
        XCTAssertEqual(names(in: directory, "renewals"), [])
        XCTAssertFalse(LegacyFolders(root: directory.path, fileSystem: POSIXFileSystem()).holdFiles(),
                       "nothing is left for every later launch to import again")
        await store.close()
    }
}
