import Dispatch
import Foundation
import XCTest
@testable import PurchaseKit

final class FileOrderStoreScaleTests: XCTestCase {
    private func seconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// The exact calls one save makes: a temporary file written, flushed,
    /// closed and renamed, and the folder flushed. No listing, no reading.
    private let callsOfOneSave: [FileSystemError.Operation: Int] = [
        .create: 1, .write: 1, .synchronize: 1, .close: 1, .rename: 1, .synchronizeDirectory: 1,
    ]

    func testTenThousandStoredOrdersLoadAndASaveCostsTheSameAsWithOne() async throws {
        let count = 10_000
        let directory = try makeTemporaryDirectory(self)
        let writerFileSystem = FaultyFileSystem()
        writerFileSystem.disableSync()  // Only the load is under test here; flushing 10,000 files would dominate.
        let writer = try makeStore(directory, fileSystem: writerFileSystem)
        let writeStart = DispatchTime.now().uptimeNanoseconds
        for index in 0..<count {
            let order = makeOrder(String(format: "order-%05d", index), user: "user-\(index % 100)",
                                  transactionID: "t-\(index)", createdAt: testEpoch.addingTimeInterval(Double(index)))
            try await writer.save(order)
        }
        let writeTime = seconds(since: writeStart)

        let fileSystem = FaultyFileSystem()
        let store = try makeStore(directory, fileSystem: fileSystem)
        _ = fileSystem.takeCalls()
        let loadStart = DispatchTime.now().uptimeNanoseconds
        let report = try await store.loadOpenOrders()
        let loadTime = seconds(since: loadStart)
        print("FileOrderStore: wrote \(count) orders in \(String(format: "%.2f", writeTime)) s without fsync; "
              + "loaded them in \(String(format: "%.2f", loadTime)) s")
        XCTAssertEqual(report.orders.count, count)
        XCTAssertEqual(report.problems, [])
        XCTAssertEqual(report.orders.first?.id, "order-00000")
        XCTAssertEqual(report.orders.last?.id, "order-09999")
        let loadCalls = fileSystem.takeCalls()
        XCTAssertEqual(loadCalls[.list], 3, "each folder (open, archive, ledger) is listed once")
        XCTAssertEqual(loadCalls[.read], count, "each file is read once")

        // Lookups never touch the disk for open orders.
        let byTransaction = try await store.order(transactionID: "t-4242")
        XCTAssertEqual(byTransaction?.id, "order-04242")
        let ofUser = try await store.openOrders(forUser: "user-7")
        XCTAssertEqual(ofUser.count, count / 100)
        XCTAssertEqual(fileSystem.takeCalls(), [:])

        // One more save among 10,000 costs exactly what a save into an empty store costs.
        try await store.save(makeOrder("one-more", transactionID: "t-more"))
        let callsAmongMany = fileSystem.takeCalls()
        XCTAssertEqual(callsAmongMany, callsOfOneSave)

        let small = FaultyFileSystem()
        let smallStore = try makeStore(try makeTemporaryDirectory(self), fileSystem: small)
        try await smallStore.save(makeOrder("first"))
        _ = small.takeCalls()
        try await smallStore.save(makeOrder("one-more", transactionID: "t-more"))
        XCTAssertEqual(small.takeCalls(), callsAmongMany)
    }

    func testTenThousandCompactedOrdersLoadFromAFewSegmentsAndAnswerLookupsWithoutTheDisk() async throws {
        let count = 10_000
        let directory = try makeTemporaryDirectory(self)
        _ = try makeStore(directory)
        // The ledger as compaction writes it, built directly: writing and compacting 10,000 files would dominate.
        var ledger = FileOrderLedger()
        var segments: Set<Int> = []
        for index in 0..<count {
            var order = makeOrder(String(format: "order-%05d", index), user: "user-\(index % 100)", transactionID: "t-\(index)",
                                  createdAt: testEpoch.addingTimeInterval(Double(index)), status: .completed)
            order.token = "token-\(index)"
            segments.insert(ledger.put(order))
        }
        for number in segments {
            try ledger.content(ofSegment: number).write(to: directory.appendingPathComponent("ledger/" + FileOrderLedger.segmentName(number)))
        }
        XCTAssertLessThan(segments.count, 10)

        let fileSystem = FaultyFileSystem()
        let store = try makeStore(directory, fileSystem: fileSystem)
        _ = fileSystem.takeCalls()
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.problems, [])
        XCTAssertEqual(report.orders, [])
        let loadCalls = fileSystem.takeCalls()
        XCTAssertEqual(loadCalls[.list], 3)
        XCTAssertEqual(loadCalls[.read], segments.count, "one read per segment, not one per order")

        let ofUser = try await store.orders(forUser: "user-42")
        XCTAssertEqual(ofUser.count, count / 100)
        let byToken = try await store.order(token: "token-4242")
        XCTAssertEqual(byToken?.id, "order-04242")
        let byTransaction = try await store.order(transactionID: "t-9999")
        XCTAssertEqual(byTransaction?.id, "order-09999")
        XCTAssertEqual(fileSystem.takeCalls(), [:], "compacted orders are answered from memory")
    }
}
