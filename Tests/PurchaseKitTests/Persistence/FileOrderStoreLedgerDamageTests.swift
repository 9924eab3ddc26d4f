import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator

/// A damaged, foreign or future ledger is set aside with a typed problem; the
/// records that can be read still load, and nothing crashes.
final class FileOrderStoreLedgerDamageTests: XCTestCase {
    private var directory: URL!
    private var clock: ManualClock!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self)
        clock = ManualClock(start: testEpoch)
    }

    private func store(_ fileSystem: any FileSystem = POSIXFileSystem()) throws -> FileOrderStore {
        try FileOrderStore(directory: directory, configuration: .testing(fileSystem, clock: clock))
    }

    private func segment(_ number: Int = 1) -> URL {
        directory.appendingPathComponent("ledger/" + FileOrderLedger.segmentName(number))
    }

    /// Three orders compacted into the first segment: header, then one line each.
    private func compactThree() async throws -> [Order] {
        let store = try store()
        var orders: [Order] = []
        for index in 0..<3 {
            let order = makeOrder("o-\(index)", transactionID: "t-\(index)",
                                  createdAt: testEpoch.addingTimeInterval(Double(index)), status: .completed)
            try await store.save(order)
            try await store.archive(orderID: order.id)
            orders.append(order)
        }
        clock.advance(by: 31 * 86_400)
        try await store.compactArchive()
        return orders.map { order in
            var compact = order
            compact.metadata = [:]
            compact.transaction?.receipt = Data()
            return compact
        }
    }

    private func lines(of url: URL) throws -> [String] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func testADamagedLineIsMovedToQuarantineAndTheOtherRecordsLoad() async throws {
        let orders = try await compactThree()
        var content = try lines(of: segment())
        XCTAssertEqual(content.count, 5, "header, three records, and the final newline")
        content[2] = String(content[2].prefix(25))  // The record of o-1, torn.
        try content.joined(separator: "\n").write(to: segment(), atomically: false, encoding: .utf8)

        let relaunched = try store()
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt])
        let message = report.problems.first?.message ?? ""
        XCTAssertTrue(message.contains("Line 3 of the ledger segment 'ledger/segment-000001.tsv'"), message)
        XCTAssertTrue(message.contains("moved to quarantine/"), message)
        for order in [orders[0], orders[2]] {
            let found = try await relaunched.order(transactionID: order.transactionID ?? "")
            XCTAssertEqual(found, order)
        }
        let lost = try await relaunched.order(id: "o-1")
        XCTAssertNil(lost)
        let quarantined = names(in: directory, "quarantine")
        XCTAssertEqual(quarantined.count, 1)
        XCTAssertEqual(try String(contentsOf: directory.appendingPathComponent("quarantine/\(quarantined[0])"), encoding: .utf8),
                       content[2] + "\n", "the damaged bytes are kept for diagnosis")
        XCTAssertEqual(try lines(of: segment()).count, 4, "the segment was rewritten without the damaged line")

        let again = try await store().loadOpenOrders()
        XCTAssertEqual(again.problems, [], "reported once")
    }

    func testTruncationAtEveryByteOffsetNeverCrashesOrHidesAnotherSegment() async throws {
        let fileSystem = FaultyFileSystem()
        fileSystem.disableSync()  // Hundreds of relaunches; durability is tested elsewhere.
        let orders = try await compactThree()
        // A second segment, written by hand as the store would: its records must always load.
        let other = makeOrder("o-other", transactionID: "t-other", status: .completed)
        var otherLedger = FileOrderLedger()
        otherLedger.put(other)
        try otherLedger.content(ofSegment: 1).write(to: segment(2))
        let bytes = try Data(contentsOf: segment())
        // Where each record's line ends (the header's end comes first): a record survives once all of
        // it is there, its line feed included (without it, its last field may have been cut short).
        let recordEnds = bytes.indices.filter { bytes[$0] == 0x0A }.dropFirst()

        for length in 0..<bytes.count {
            try bytes.prefix(length).write(to: segment())
            let relaunched = try store(fileSystem)
            let report = try await relaunched.loadOpenOrders()
            let found = try await relaunched.order(transactionID: "t-other")
            XCTAssertEqual(found?.id, "o-other", "length \(length)")
            let survivors = try await relaunched.orders(forUser: "user-1").filter { $0.id != "o-other" }
            // Whole lines survive; the torn one is reported, never half-read.
            XCTAssertTrue(survivors.allSatisfy { orders.contains($0) }, "length \(length)")
            XCTAssertTrue(report.problems.allSatisfy { $0.code == .persistenceCorrupt }, "length \(length): \(report.problems)")
            XCTAssertEqual(survivors.count, recordEnds.filter { $0 < length }.count, "length \(length)")
            try? FileManager.default.removeItem(at: directory.appendingPathComponent("quarantine"))
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("quarantine"), withIntermediateDirectories: false)
        }
    }

    func testGarbageForeignAndUnusableLedgerEntriesAreSetAsideAndAFutureSegmentIsLeftAlone() async throws {
        let orders = try await compactThree()
        let ledger = directory.appendingPathComponent("ledger")
        try Data((0..<500).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(to: segment(2))
        try Data("notes".utf8).write(to: ledger.appendingPathComponent("notes.txt"))
        try makeFIFO(segment(3).path)
        let future = Data(#"{"format":"purchasekit.order-ledger","version":9}"#.utf8 + [0x0A] + Array(#"{"new":"shape"}"#.utf8))
        try future.write(to: segment(4))

        let relaunched = try store()
        let report = try await relaunched.loadOpenOrders()
        let codes = report.problems.map(\.code)
        XCTAssertEqual(codes.filter { $0 == .persistenceCorrupt }.count, 3, "\(report.problems)")
        XCTAssertEqual(codes.filter { $0 == .persistenceUnusableFile }.count, 1, "\(report.problems)")
        XCTAssertTrue(report.problems.contains { $0.message.contains("newer PurchaseKit (format version 9)") })
        let all = try await relaunched.orders(forUser: "user-1")
        XCTAssertEqual(all, orders)
        XCTAssertEqual(names(in: directory, "ledger"), [FileOrderLedger.segmentName(1), FileOrderLedger.segmentName(4)],
                       "the newer segment is left in place for a newer version")
        XCTAssertEqual(try Data(contentsOf: segment(4)), future, "and never rewritten")
        XCTAssertEqual(names(in: directory, "quarantine").count, 3)

        // New records never go into the newer version's segment.
        let order = makeOrder("o-new", transactionID: "t-new", status: .completed)
        try await relaunched.save(order)
        try await relaunched.archive(orderID: "o-new")
        clock.advance(by: 31 * 86_400)
        try await relaunched.compactArchive()
        XCTAssertEqual(try Data(contentsOf: segment(4)), future)
        XCTAssertTrue(names(in: directory, "ledger").contains(FileOrderLedger.segmentName(5)))
    }

    func testTwoRecordsOfOneOrderKeepTheNewerAndTheOlderSegmentIsRewritten() async throws {
        let orders = try await compactThree()
        var newer = orders[1]
        newer.status = .revoked
        newer.updatedAt = newer.updatedAt.addingTimeInterval(60)
        var copy = FileOrderLedger()
        copy.put(newer)
        try copy.content(ofSegment: 1).write(to: segment(2))

        let relaunched = try store()
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.problems, [])
        let found = try await relaunched.order(id: "o-1")
        XCTAssertEqual(found?.status, .revoked)
        XCTAssertEqual(try lines(of: segment()).filter { !$0.isEmpty }.count, 3, "header and the two other records")
        try await relaunched.remove(orderID: "o-1")
        let afterRemoval = try await store().order(id: "o-1")
        XCTAssertNil(afterRemoval, "no older copy brings a removed order back")
    }
}
