import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator

/// Retention compacts archived orders; it never drops what money depends on.
final class FileOrderStoreCompactionTests: XCTestCase {
    private let day: TimeInterval = 86_400
    private var directory: URL!
    private var clock: ManualClock!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self)
        clock = ManualClock(start: testEpoch)
    }

    private func store(_ fileSystem: any FileSystem = POSIXFileSystem(), retention: TimeInterval = 30 * 86_400) throws -> FileOrderStore {
        try FileOrderStore(directory: directory, configuration: .testing(fileSystem, clock: clock, archiveRetention: retention))
    }

    /// A paid, finished order with a token, a receipt, metadata and a hint.
    private func paidOrder(_ id: String, user: String = "user-1", createdAt: Date = testEpoch) -> Order {
        var order = makeOrder(id, user: user, transactionID: "t-\(id)", createdAt: createdAt, status: .completed)
        order.token = "token-\(id)"
        order.transaction?.orderToken = "token-\(id)"
        order.transaction?.originalID = "original-\(id)"
        order.transaction?.expirationDate = createdAt.addingTimeInterval(30 * 86_400)
        order.metadata = ["campaign": "secret-campaign-\(id)"]
        order.hint = "hint-\(id)"
        order.verificationAttempts = 2
        order.paymentBeganAt = createdAt.addingTimeInterval(1)
        order.finishedAt = createdAt.addingTimeInterval(9)
        order.updatedAt = createdAt.addingTimeInterval(10)
        return order
    }

    /// What the store gives back for a compacted order: everything but the receipt, metadata and hint.
    private func compacted(_ order: Order) -> Order {
        var compact = order
        compact.metadata = [:]
        compact.hint = nil
        compact.transaction?.receipt = Data()
        return compact
    }

    /// Every byte the store keeps on disk, in one blob, to search for secrets.
    private func everyByteOnDisk() throws -> Data {
        var all = Data()
        let enumerator = FileManager.default.enumerator(atPath: directory.path)
        while let relative = enumerator?.nextObject() as? String {
            let path = directory.appendingPathComponent(relative).path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                all += try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return all
    }

    private func ledgerLines() throws -> [String] {
        try names(in: directory, "ledger").flatMap { name in
            try String(contentsOf: directory.appendingPathComponent("ledger/\(name)"), encoding: .utf8)
                .split(separator: "\n").dropFirst().map(String.init)
        }
    }

    func testAnOrderPastItsRetentionIsCompactedAndAnswersEveryLookupAfterARelaunch() async throws {
        let first = try store()
        let old = paidOrder("o-old")
        let open = makeOrder("o-open", status: .purchased)  // Open orders are never compacted, however old.
        try await first.save(old)
        try await first.save(open)
        try await first.archive(orderID: "o-old")

        clock.advance(by: 30 * day + 10)  // Exactly at the retention: still whole.
        let kept = try await first.compactArchive()
        XCTAssertEqual(kept, 0)
        let whole = try await first.order(id: "o-old")
        XCTAssertEqual(whole, old)

        clock.advance(by: 1)
        let relaunched = try store()  // The launch compacts.
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.orders, [open])
        XCTAssertEqual(report.problems, [])
        XCTAssertEqual(names(in: directory, "archive"), [])
        XCTAssertEqual(names(in: directory, "ledger"), ["segment-000001.tsv"])

        let reopened = try store()
        let ofUser = try await reopened.orders(forUser: "user-1")
        XCTAssertEqual(ofUser, [compacted(old), open])
        let byID = try await reopened.order(id: "o-old")
        XCTAssertEqual(byID, compacted(old))
        let byTransaction = try await reopened.order(transactionID: "t-o-old")
        XCTAssertEqual(byTransaction, compacted(old))
        let byToken = try await reopened.order(token: "token-o-old")
        XCTAssertEqual(byToken, compacted(old))
        let archived = try await reopened.archivedOrders()
        XCTAssertEqual(archived, [compacted(old)])
        let openOfUser = try await reopened.openOrders(forUser: "user-1")
        XCTAssertEqual(openOfUser, [open])

        let disk = try everyByteOnDisk()
        XCTAssertNil(disk.range(of: Data("receipt-o-old".utf8)), "the receipt is gone from disk")
        XCTAssertNil(disk.range(of: Data("secret-campaign-o-old".utf8)), "the metadata is gone from disk")
        XCTAssertNil(disk.range(of: Data("hint-o-old".utf8)), "the hint is gone from disk")
        XCTAssertNotNil(disk.range(of: Data("token-o-old".utf8)), "the token is kept: late payments resolve by it")
    }

    func testCompactionKeepsOneRecordPerOrderThroughReopeningRearchivingAndRemoval() async throws {
        let first = try store()
        var order = paidOrder("o-1")
        try await first.save(order)
        try await first.save(paidOrder("o-2", createdAt: testEpoch.addingTimeInterval(1)))
        try await first.archive(orderID: "o-1")
        try await first.archive(orderID: "o-2")
        clock.advance(by: 31 * day)
        let count = try await first.compactArchive()
        XCTAssertEqual(count, 2)

        // A refund re-opens the compacted order: the open file wins over the record.
        order.status = .revoked
        order.transaction?.revocationDate = clock.now
        order.transaction?.receipt = Data()
        order.updatedAt = clock.now
        try await first.save(order)
        let reopened = try await store().order(id: "o-1")
        XCTAssertEqual(reopened?.status, .revoked)
        XCTAssertEqual(try ledgerLines().count, 2)

        // Archived and compacted again: the record is replaced, not added.
        let second = try store()
        try await second.archive(orderID: "o-1")
        clock.advance(by: 31 * day)
        try await second.compactArchive()
        XCTAssertEqual(try ledgerLines().count, 2)
        let revoked = try await store().order(transactionID: "t-o-1")
        XCTAssertEqual(revoked, compacted(order))

        // Removal deletes the record for good.
        try await second.remove(orderID: "o-1")
        XCTAssertEqual(try ledgerLines().count, 1)
        let third = try store()
        let gone = try await third.order(id: "o-1")
        XCTAssertNil(gone)
        let goneByToken = try await third.order(token: "token-o-1")
        XCTAssertNil(goneByToken)
        try await third.remove(orderID: "o-2")
        XCTAssertEqual(names(in: directory, "ledger"), [], "an emptied segment is deleted")
        let none = try await store().orders(forUser: "user-1")
        XCTAssertEqual(none, [])
    }

    func testALedgerThatCannotBeWrittenLeavesTheOrderArchivedWholeUntilTheNextAttempt() async throws {
        let fileSystem = FaultyFileSystem()
        let first = try store(fileSystem)
        let order = paidOrder("o-1")
        try await first.save(order)
        try await first.archive(orderID: "o-1")
        clock.advance(by: 31 * day)
        fileSystem.fail(.synchronize, errno: EIO, pathContains: "/ledger/")

        await assertThrows(.persistenceWriteFailed) { _ = try await first.compactArchive() }
        let stillWhole = try await first.order(id: "o-1")
        XCTAssertEqual(stillWhole, order)
        XCTAssertEqual(names(in: directory, "archive"), [FileNameCoding.fileName(for: "o-1")])
        XCTAssertEqual(names(in: directory, "ledger"), [])

        fileSystem.heal()
        let compactedCount = try await first.compactArchive()
        XCTAssertEqual(compactedCount, 1)
        let now = try await store().order(token: "token-o-1")
        XCTAssertEqual(now, compacted(order))
    }

    func testACrashBetweenTheLedgerWriteAndTheFileDeletionLosesNothingAndDuplicatesNothing() async throws {
        let fileSystem = FaultyFileSystem()
        let first = try store(fileSystem)
        let order = paidOrder("o-1")
        try await first.save(order)
        try await first.archive(orderID: "o-1")
        clock.advance(by: 31 * day)
        // The record is durable, the archived file cannot be deleted: as if the process died in between.
        fileSystem.fail(.remove, errno: EIO, pathContains: "/archive/")
        await assertThrows(.persistenceWriteFailed) { _ = try await first.compactArchive() }
        XCTAssertEqual(try ledgerLines().count, 1)
        let whole = try await first.order(id: "o-1")
        XCTAssertEqual(whole, order, "the file wins over the record while it exists")

        let relaunched = try store()
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.problems, [])
        XCTAssertEqual(names(in: directory, "archive"), [])
        XCTAssertEqual(try ledgerLines().count, 1, "the record was replaced in place")
        let found = try await relaunched.order(transactionID: "t-o-1")
        XCTAssertEqual(found, compacted(order))
    }

    func testARemovalThatCannotRewriteTheLedgerKeepsTheOrderWhole() async throws {
        let fileSystem = FaultyFileSystem()
        let first = try store(fileSystem)
        let order = paidOrder("o-1")
        try await first.save(order)
        try await first.save(paidOrder("o-2", createdAt: testEpoch.addingTimeInterval(1)))
        for id in ["o-1", "o-2"] { try await first.archive(orderID: id) }
        clock.advance(by: 31 * day)
        try await first.compactArchive()

        fileSystem.fail(.rename, errno: ENOSPC, pathContains: "/ledger/")
        await assertThrows(.persistenceWriteFailed) { try await first.remove(orderID: "o-1") }
        let kept = try await first.order(token: "token-o-1")
        XCTAssertEqual(kept, compacted(order))
        XCTAssertEqual(try ledgerLines().count, 2)
        fileSystem.heal()
        try await first.remove(orderID: "o-1")
        let gone = try await store().order(token: "token-o-1")
        XCTAssertNil(gone)
        let other = try await store().order(id: "o-2")
        XCTAssertEqual(other?.id, "o-2")
    }

    func testManyRecordsFillSegmentsUpToTheTargetSizeAndAllLoad() async throws {
        let fileSystem = FaultyFileSystem()
        fileSystem.disableSync()  // Thousands of files; durability is tested above.
        let first = try store(fileSystem)
        let ids = (0..<1_500).map { String(format: "order-%04d-", $0) + String(repeating: "p", count: 200) }
        for (index, id) in ids.enumerated() {
            try await first.save(paidOrder(id, user: "user-\(index % 10)", createdAt: testEpoch.addingTimeInterval(Double(index))))
            try await first.archive(orderID: id)
        }
        clock.advance(by: 31 * day)
        let count = try await first.compactArchive()
        XCTAssertEqual(count, ids.count)

        let segments = names(in: directory, "ledger")
        XCTAssertGreaterThan(segments.count, 1)
        for name in segments {
            let size = try Data(contentsOf: directory.appendingPathComponent("ledger/\(name)")).count
            XCTAssertLessThanOrEqual(size, FileOrderLedger.segmentTargetSize, name)
        }
        let relaunched = try store(fileSystem)
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.problems, [])
        let ofUser = try await relaunched.orders(forUser: "user-3")
        XCTAssertEqual(ofUser.map(\.id), ids.enumerated().filter { $0.offset % 10 == 3 }.map(\.element))
        for id in [ids[0], ids[777], ids[1_499]] {
            let byToken = try await relaunched.order(token: "token-\(id)")
            XCTAssertEqual(byToken?.id, id)
        }
    }

    func testHostileIDsSurviveCompaction() async throws {
        let first = try store()
        let ids = ["", "..", "a\nb", "quote\"and\\back", "tab\there", "emoji-🧾", String(repeating: "z", count: 5_000), "/etc/passwd"]
        for (index, id) in ids.enumerated() {
            try await first.save(paidOrder(id, createdAt: testEpoch.addingTimeInterval(Double(index))))
            try await first.archive(orderID: id)
        }
        clock.advance(by: 31 * day)
        try await first.compactArchive()
        let relaunched = try store()
        for id in ids {
            let found = try await relaunched.order(transactionID: "t-\(id)")
            XCTAssertTrue(found.map { Array($0.id.utf8) == Array(id.utf8) } ?? false, id.debugDescription)
        }
    }

    /// Compaction moves an archived order to the ledger; it is not a save, so
    /// an order saved after it keeps the transaction id and token the two share.
    func testCompactingAnOlderHolderLeavesASharedTransactionAndTokenWithTheOrderSavedLast() async throws {
        let store = try store(retention: day)
        var older = paidOrder("o-older")
        older.status = .failed
        older.transaction?.id = "t-shared"
        older.token = "token-shared"
        var newer = makeOrder("o-newer", transactionID: "t-shared", createdAt: testEpoch.addingTimeInterval(1))
        newer.token = "token-shared"
        try await store.save(older)
        try await store.archive(orderID: older.id)
        try await store.save(newer)
        clock.advance(by: 2 * day)
        let count = try await store.compactArchive()
        XCTAssertEqual(count, 1, "the older order is past its retention")
        let compactedOlder = try await store.order(id: older.id)
        XCTAssertEqual(compactedOlder, compacted(older))
        let byTransaction = try await store.order(transactionID: "t-shared")
        XCTAssertEqual(byTransaction?.id, newer.id, "the compaction gave the transaction id to an order not saved last")
        let byToken = try await store.order(token: "token-shared")
        XCTAssertEqual(byToken?.id, newer.id, "the compaction gave the token to an order not saved last")
        let archived = try await store.archivedOrders()
        XCTAssertEqual(archived.map(\.id), [older.id], "the compacted order went missing from the archived ones")
    }
}
