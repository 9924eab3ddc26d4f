import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator

/// Segments of ledger version 1 and 2 side by side, torn or with a damaged
/// header, and segments of a version this build does not read: no record is
/// read other than it was written, and no order is answered "none" while a
/// segment that may hold it was left unread.
final class FileOrderStoreLedgerVersionTests: XCTestCase {
    private var directory: URL!
    private var clock: ManualClock!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self)
        clock = ManualClock(start: testEpoch)
        // The store creates its folders; the segments below are written by hand.
        _ = try store()
    }

    private func store() throws -> FileOrderStore {
        try FileOrderStore(directory: directory, configuration: .testing(POSIXFileSystem(), clock: clock))
    }

    private func segment(_ number: Int) -> URL {
        directory.appendingPathComponent("ledger/" + FileOrderLedger.segmentName(number))
    }

    /// A compacted subscription order whose group matters to its entitlement.
    private func subscription(_ id: String) -> Order {
        var order = makeOrder(id, transactionID: "t-\(id)", status: .completed)
        order.productType = .autoRenewable
        order.subscriptionGroupID = "com.example.group.pro"
        return CompactOrderRecord.compact(order)
    }

    func testATornVersion2LastLineIsNeverReadWithAShortenedGroup() async throws {
        let order = subscription("o-1")
        var ledger = FileOrderLedger()
        ledger.put(order)
        let bytes = ledger.content(ofSegment: 1)
        // Every cut from the end of the header to just before the record's line feed.
        for length in FileOrderLedger.headerLine.count..<(bytes.count - 1) {
            try bytes.prefix(length).write(to: segment(1))
            let relaunched = try store()
            let report = try await relaunched.loadOpenOrders()
            let found = try await relaunched.order(id: "o-1")
            XCTAssertNil(found, "length \(length): a torn line read as \(String(describing: found?.subscriptionGroupID))")
            XCTAssertTrue(report.problems.allSatisfy { $0.code == .persistenceCorrupt }, "length \(length)")
            try? FileManager.default.removeItem(at: directory.appendingPathComponent("quarantine"))
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("quarantine"), withIntermediateDirectories: false)
        }
    }

    func testATornVersion1LastLineStillReadsWhenOnlyItsLineFeedIsMissing() async throws {
        var order = subscription("o-1")
        order.productType = nil
        order.subscriptionGroupID = nil
        let line = CompactOrderRecord.line(for: order)
        let fields = line.dropLast().split(separator: CompactOrderRecord.tab, omittingEmptySubsequences: false)
        let version1 = Array(fields.prefix(CompactOrderRecord.version1FieldCount).joined(separator: [CompactOrderRecord.tab]))
        try Data(Array(#"{"format":"purchasekit.order-ledger","version":1}"#.utf8) + [0x0A] + version1).write(to: segment(1))

        let found = try await store().order(id: "o-1")
        XCTAssertEqual(found, order, "a version 1 line ends in a field that cannot be cut short unnoticed")
    }

    /// A segment as a later version writes it: a header naming version 3, and records of a shape this build does not know.
    private func writeNewerSegment(_ number: Int) throws {
        try Data(Array(#"{"format":"purchasekit.order-ledger","version":3}"#.utf8) + [0x0A]
                 + Array("=o-later\t=user-1\t=com.example.coins.100\t...\n".utf8)).write(to: segment(number))
    }

    func testALookupThatFindsNothingThrowsWhileASegmentOfANewerVersionIsUnread() async throws {
        var ledger = FileOrderLedger()
        ledger.put(subscription("o-1"))
        try ledger.content(ofSegment: 1).write(to: segment(1))
        try writeNewerSegment(2)

        let relaunched = try store()
        let report = try await relaunched.loadOpenOrders()
        XCTAssertTrue(report.problems.contains { $0.message.contains("newer PurchaseKit (format version 3)") })
        let held = try await relaunched.order(transactionID: "t-o-1")
        XCTAssertEqual(held?.id, "o-1", "the orders of the segments it reads are answered")
        // The newer segment may hold the order of any transaction or token: "none" would let
        // the engine make a new order of a paid transaction that one of them already credited.
        do {
            let none = try await relaunched.order(token: "o-later")
            XCTFail("answered \(String(describing: none)) while a segment was left unread")
        } catch {
            XCTAssertEqual(error.code, .persistenceReadFailed)
        }
        do {
            let none = try await relaunched.order(transactionID: "t-later")
            XCTFail("answered \(String(describing: none)) while a segment was left unread")
        } catch {
            XCTAssertEqual(error.code, .persistenceReadFailed)
        }
    }

    func testAJournalImportingAFolderWithASegmentOfANewerVersionDoesNotAnswerNone() async throws {
        var ledger = FileOrderLedger()
        ledger.put(subscription("o-1"))
        try ledger.content(ofSegment: 1).write(to: segment(1))
        try writeNewerSegment(2)

        let journal = try makeJournalStore(directory, clock: clock)
        let imported = try await journal.order(transactionID: "t-o-1")
        XCTAssertEqual(imported?.subscriptionGroupID, "com.example.group.pro", "imported with its group")
        do {
            let none = try await journal.order(token: "o-later")
            XCTFail("answered \(String(describing: none)) while a segment was left unread")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .persistenceReadFailed)
        }
        await journal.close()
        XCTAssertTrue(FileManager.default.fileExists(atPath: segment(2).path), "left for a version that reads it")
    }

    /// The line a version 1 segment holds for `order`: its first 26 fields.
    private func version1Line(_ order: Order) -> [UInt8] {
        let fields = CompactOrderRecord.line(for: order).dropLast().split(separator: CompactOrderRecord.tab,
                                                                           omittingEmptySubsequences: false)
        return Array(fields.prefix(CompactOrderRecord.version1FieldCount).joined(separator: [CompactOrderRecord.tab])) + [0x0A]
    }

    func testANewerVersion1RecordOfAnOrderKeepsTheTypeAndGroupItsOlderRecordHolds() async throws {
        // This version compacted the subscription; an older one, run after it, changed and compacted it
        // again (a refund) into a version 1 segment, without the type and group. Either segment may come first.
        let order = subscription("o-1")
        var revoked = order
        revoked.status = .revoked
        revoked.updatedAt = order.updatedAt.addingTimeInterval(60)
        var version2 = FileOrderLedger()
        version2.put(order)
        let version1 = Data(Array(#"{"format":"purchasekit.order-ledger","version":1}"#.utf8) + [0x0A] + version1Line(revoked))
        for (first, second) in [(version2.content(ofSegment: 1), version1), (version1, version2.content(ofSegment: 1))] {
            try? FileManager.default.removeItem(at: segment(3))
            try first.write(to: segment(1))
            try second.write(to: segment(2))

            let found = try await store().order(id: "o-1")
            XCTAssertEqual(found, revoked, "the newer record, with the product facts the older one kept")
            XCTAssertEqual(names(in: directory, "ledger").count, 1, "the older record is gone")
            let relaunched = try await store().order(id: "o-1")
            XCTAssertEqual(relaunched, revoked, "and the merged record was written")
            try? FileManager.default.removeItem(at: segment(1))
            try? FileManager.default.removeItem(at: segment(2))
        }
    }
}

