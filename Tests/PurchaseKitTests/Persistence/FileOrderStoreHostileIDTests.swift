import Foundation
import XCTest
@testable import PurchaseKit

final class FileOrderStoreHostileIDTests: XCTestCase {
    func testEveryHostileIDRoundTripsThroughARelaunch() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeStore(directory)
        // Canonically equivalent ids are one id to Swift (and to InMemoryOrderStore); keep one of each.
        var ids: [String] = []
        for id in hostileIDs where !ids.contains(id) { ids.append(id) }
        let orders = ids.enumerated().map { index, id in
            makeOrder(id, user: "user-\(index % 3)", transactionID: "t-\(index)",
                      createdAt: testEpoch.addingTimeInterval(Double(index)))
        }
        for order in orders { try await store.save(order) }
        // Nothing escaped the folder.
        XCTAssertEqual(names(in: directory, "orders").count, orders.count)
        XCTAssertEqual(names(in: directory, "").sorted(), ["archive", "ledger", "orders", "quarantine"])

        let relaunched = try makeStore(directory)
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.problems, [])
        XCTAssertEqual(report.orders, orders)
        for (index, order) in orders.enumerated() {
            let byID = try await relaunched.order(id: order.id)
            XCTAssertEqual(byID, order, order.id.debugDescription)
            XCTAssertTrue(byID.map { Array($0.id.utf8) == Array(order.id.utf8) } ?? false, "the exact bytes come back")
            let byTransaction = try await relaunched.order(transactionID: "t-\(index)")
            XCTAssertEqual(byTransaction?.id, order.id)
        }
        // Archive and re-open a few of the nastiest, then relaunch again.
        for id in ["..", "", String(repeating: "a", count: 10_000)] { try await relaunched.archive(orderID: id) }
        let third = try makeStore(directory)
        let open = try await third.loadOpenOrders().orders
        XCTAssertEqual(open.count, orders.count - 3)
        let archived = try await third.archivedOrders()
        XCTAssertEqual(Set(archived.map(\.id)), ["..", "", String(repeating: "a", count: 10_000)])
    }

    func testIDsDifferingOnlyInCaseAreDifferentOrders() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeStore(directory)
        let spellings = ["order", "Order", "ORDER", "oRdEr"]
        for (index, id) in spellings.enumerated() { try await store.save(makeOrder(id, transactionID: "t-\(index)")) }
        let relaunched = try makeStore(directory)
        let loaded = try await relaunched.loadOpenOrders().orders
        XCTAssertEqual(Set(loaded.map(\.id)), Set(spellings))
        for (index, id) in spellings.enumerated() {
            let found = try await relaunched.order(transactionID: "t-\(index)")
            XCTAssertEqual(found?.id, id)
        }
    }

    func testACanonicallyEquivalentRespellingReplacesTheOrderUnderItsOwnName() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeStore(directory)
        try await store.save(makeOrder("caf\u{E9}"))
        var respelled = makeOrder("cafe\u{301}")
        respelled.status = .delivered
        try await store.save(respelled)
        XCTAssertEqual(names(in: directory, "orders"), [FileNameCoding.fileName(for: "cafe\u{301}")],
                       "the old spelling's file was replaced, not left as a second copy")
        let loaded = try await makeStore(directory).loadOpenOrders()
        XCTAssertEqual(loaded.orders, [respelled])
        XCTAssertEqual(loaded.problems, [])
    }
}
