import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator

/// A directory written by `FileOrderStore` opens with the journal store and
/// loses nothing: open, archived and compacted orders, lookups by token and
/// transaction, and each user's history.
final class JournalMigrationTests: XCTestCase {
    func testEveryOrderOfAFileOrderStoreIsImportedOnceAndItsFilesGo() async throws {
        let directory = try makeTemporaryDirectory(self)
        let clock = ManualClock(start: testEpoch)
        let legacy = try FileOrderStore(directory: directory, configuration: .testing(POSIXFileSystem(), clock: clock))
        var open = makeFullOrder("o-open", status: .purchased)
        open.createdAt = testEpoch
        let archived = makeOrder("o-archived", transactionID: "t-archived", createdAt: testEpoch.addingTimeInterval(1), status: .completed)
        var old = makeFullOrder("o-old", user: "user-1", status: .completed)
        old.createdAt = testEpoch.addingTimeInterval(-90 * 86_400)
        old.updatedAt = testEpoch.addingTimeInterval(-60 * 86_400)
        for order in [open, archived, old] { try await legacy.save(order) }
        try await legacy.archive(orderID: "o-archived")
        try await legacy.archive(orderID: "o-old")
        let compactedCount = try await legacy.compactArchive()
        XCTAssertEqual(compactedCount, 1, "the old order is in the ledger")
        // What the folder holds is what a new FileOrderStore reads from it (its ledger keeps
        // less than the order in memory: no product type or subscription group).
        let reader = try FileOrderStore(directory: directory, configuration: .testing(POSIXFileSystem(), clock: clock))
        let compactedOrder = try await reader.order(id: "o-old")
        let compacted = try XCTUnwrap(compactedOrder)
        let everything = try await reader.orders(forUser: "user-1")
        XCTAssertEqual(everything.count, 3)
        // A damaged file the FileOrderStore sets aside during the import.
        try Data("{\"id\": \"half".utf8).write(to: directory.appendingPathComponent("orders/order-torn.json"))

        let store = try makeJournalStore(directory, clock: clock)
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.orders, [open])
        XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt], "the torn file is reported")
        let history = try await store.orders(forUser: "user-1")
        XCTAssertEqual(history, everything)
        let byToken = try await store.order(token: "token-o-old")
        XCTAssertEqual(byToken, compacted)
        let byTransaction = try await store.order(transactionID: "t-archived")
        XCTAssertEqual(byTransaction, archived)
        XCTAssertEqual(compacted.transaction?.receipt, Data(), "compacted stays compacted")
        for folder in ["orders", "archive", "ledger"] {
            XCTAssertEqual(names(in: directory, folder), [], "\(folder) was emptied")
        }
        XCTAssertTrue(names(in: directory, "quarantine").contains { $0.hasSuffix("order-torn.json") })

        // The next launch reads the snapshot alone, and finds the same.
        let (reopened, again) = try await reopen(store, directory)
        XCTAssertEqual(again.orders, [open])
        XCTAssertTrue(again.problems.isEmpty)
        let historyAgain = try await reopened.orders(forUser: "user-1")
        XCTAssertEqual(historyAgain, everything)
    }

    func testAnImportInterruptedBeforeTheFilesWentDoesNotOverwriteLaterChanges() async throws {
        let directory = try makeTemporaryDirectory(self)
        let legacy = try makeStore(directory)
        let first = makeOrder("o-1", status: .purchased)
        try await legacy.save(first)
        let saved = try Data(contentsOf: directory.appendingPathComponent("orders/order-o-1.json"))

        let store = try makeJournalStore(directory)
        _ = try await store.loadOpenOrders()
        var delivered = first
        delivered.status = .delivered
        try await store.save(delivered)
        // As if the deletion of the imported files had been cut short: the old file is back.
        try saved.write(to: directory.appendingPathComponent("orders/order-o-1.json"))

        let (reopened, report) = try await reopen(store, directory)
        XCTAssertEqual(report.orders, [delivered], "the journal's later version wins")
        XCTAssertEqual(names(in: directory, "orders"), [])
        await reopened.close()
    }

    func testAnOrderRemovedWhileItsImportedFileIsStillThereStaysRemoved() async throws {
        let directory = try makeTemporaryDirectory(self)
        let legacy = try makeStore(directory)
        try await legacy.save(makeOrder("o-kept", status: .purchased))
        try await legacy.save(makeOrder("o-gone", createdAt: testEpoch.addingTimeInterval(1), status: .completed))
        try await legacy.archive(orderID: "o-gone")

        // The import's deletion of the old files fails (only logged): they stay.
        let disk = FaultyFileSystem()
        disk.fail(.remove, errno: EACCES, pathContains: "/archive/")
        let store = try makeJournalStore(directory, fileSystem: disk)
        _ = try await store.loadOpenOrders()
        XCTAssertEqual(names(in: directory, "archive"), ["order-o-gone.json"], "the deletion failed")
        disk.heal()
        try await store.remove(orderID: "o-gone")
        let gone = try await store.order(id: "o-gone")
        XCTAssertNil(gone)

        let (reopened, report) = try await reopen(store, directory)
        XCTAssertEqual(report.orders.map(\.id), ["o-kept"])
        let stillGone = try await reopened.order(id: "o-gone")
        XCTAssertNil(stillGone, "the leftover file did not bring the removed order back")
        XCTAssertEqual(names(in: directory, "archive"), [])
        await reopened.close()
    }

    func testAnOrderTooLargeForTheJournalStaysInItsFile() async throws {
        let directory = try makeTemporaryDirectory(self)
        let legacy = try makeStore(directory)
        var large = makeOrder("o-large")
        large.metadata = ["blob": String(repeating: "x", count: 3_000)]
        try await legacy.save(large)
        try await legacy.save(makeOrder("o-small", createdAt: testEpoch.addingTimeInterval(1)))

        let store = try makeJournalStore(directory, maximumRecordSize: 2_000)
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.orders.map(\.id), ["o-small"])
        XCTAssertEqual(report.problems.first?.orderID, "o-large")
        XCTAssertEqual(names(in: directory, "orders"), ["order-o-large.json"], "its file was kept for a later import")
    }
}
