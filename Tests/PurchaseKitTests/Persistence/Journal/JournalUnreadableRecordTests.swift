import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator

/// A record whose checksum holds but whose content cannot be read whole (a
/// newer or foreign writer, a bug) never changes an order: it is set aside
/// with a typed problem, and the order stays as the records before it left it.
final class JournalUnreadableRecordTests: XCTestCase {
    /// A journal holding `order`, closed, with `payload` appended as one framed record.
    private func journal(with order: Order, appending payload: [UInt8]) async throws -> URL {
        let directory = try makeTemporaryDirectory(self)
        try await appendToJournal(of: order, in: directory, framedRecord(payload))
        return directory
    }

    private func assertSetAside(_ directory: URL, keeps order: Order, file: StaticString = #filePath, line: UInt = #line) async throws {
        let store = try makeJournalStore(directory)
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.orders, [order], file: file, line: line)
        XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt], file: file, line: line)
        let found = try await store.order(id: order.id)
        XCTAssertEqual(found, order, file: file, line: line)
        XCTAssertEqual(names(in: directory, "quarantine").count, 1, file: file, line: line)
        await store.close()
    }

    /// A remove record with bytes after the id: not a remove this version wrote, so no order goes.
    func testARemoveRecordWithBytesAfterItsIDRemovesNothing() async throws {
        let order = makeOrder("o-1", transactionID: "t-1")
        var remove = ByteWriter()
        JournalRecord.remove(id: order.id, into: &remove)
        // The payload of a well-formed remove of o-1, then two more bytes.
        let payload = Array(remove.bytes[JournalFrame.headerSize...]) + [0x01, 0x02]
        let directory = try await journal(with: order, appending: payload)
        try await assertSetAside(directory, keeps: order)
    }

    /// An archived put whose keys read but whose order is cut short: the
    /// order is not moved to an archive it could never be read back from.
    func testAnArchivedPutWhoseOrderCannotBeReadWholeLeavesTheOrderOpen() async throws {
        let order = makeFullOrder("o-1")
        var put = ByteWriter()
        JournalRecord.put(order, place: .archived, into: &put)
        var payload = Array(put.bytes[JournalFrame.headerSize...])
        payload.removeLast(8)
        let keys = try payload.dropFirst(2).withUnsafeBytes { try OrderBinaryCoding.decodeKeys($0) }
        XCTAssertEqual(keys.id, order.id, "the keys still read")
        let directory = try await journal(with: order, appending: payload)
        try await assertSetAside(directory, keeps: order)
    }

    /// A spend record of a negative amount, or leaving a negative balance:
    /// no spend this version writes (``JournalOrderStore/recordSpend(_:)``
    /// refuses them), and read as one it would add units to a balance.
    func testASpendRecordOfANegativeAmountOrBalanceIsSetAsideNotCredited() async throws {
        for (amount, balanceAfter) in [(-5, 10), (0, 10), (5, -1)] {
            let order = makeOrder("o-1", transactionID: "t-1")
            let spend = ConsumableSpend(id: "s-1", userID: order.userID, balanceKey: "coins", amount: amount,
                                        date: testEpoch, balanceAfter: balanceAfter)
            var record = ByteWriter()
            JournalRecord.spend(spend, into: &record)
            let directory = try await journal(with: order, appending: Array(record.bytes[JournalFrame.headerSize...]))
            try await assertSetAside(directory, keeps: order)
            let store = try makeJournalStore(directory)
            let spends = try await store.spends(forUser: order.userID)
            XCTAssertEqual(spends, [], "amount \(amount), balance after \(balanceAfter)")
            await store.close()
        }
    }
}
