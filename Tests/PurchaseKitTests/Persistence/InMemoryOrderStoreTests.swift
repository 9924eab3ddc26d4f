import Foundation
import XCTest
@testable import PurchaseKit

final class InMemoryOrderStoreTests: XCTestCase {
    private func order(
        _ id: String, user: String = "user-1", status: OrderStatus = .created, at seconds: Double = 0, transactionID: String? = nil
    ) -> Order {
        var order = Order(id: id, productID: "com.example.coins.100", userID: user, status: status,
                          createdAt: Date(timeIntervalSinceReferenceDate: seconds))
        if let transactionID {
            order.transaction = StoreTransaction(id: transactionID, productID: order.productID,
                                                 purchaseDate: Date(timeIntervalSinceReferenceDate: seconds + 1))
        }
        return order
    }

    func testEmptyStore() async throws {
        let store = InMemoryOrderStore()
        let report = await store.loadOpenOrders()
        XCTAssertTrue(report.orders.isEmpty)
        XCTAssertTrue(report.problems.isEmpty)
        let missing = await store.order(id: "nope")
        XCTAssertNil(missing)
    }

    func testSaveInsertsAndReplacesByID() async throws {
        let store = InMemoryOrderStore()
        await store.save(order("a", at: 1))
        var replacement = order("a", status: .purchasing, at: 1)
        replacement.hint = "replaced"
        await store.save(replacement)
        let orders = await store.loadOpenOrders().orders
        XCTAssertEqual(orders, [replacement])
        let found = await store.order(id: "a")
        XCTAssertEqual(found?.hint, "replaced")
    }

    func testOpenOrdersAreSortedByCreationThenID() async throws {
        let store = InMemoryOrderStore(orders: [order("c", at: 5), order("b", at: 1), order("a", at: 5)])
        let ids = await store.loadOpenOrders().orders.map(\.id)
        XCTAssertEqual(ids, ["b", "a", "c"])
    }

    func testOpenOrdersForUserReturnsOnlyThatUsersOpenOrders() async throws {
        let store = InMemoryOrderStore()
        await store.save(order("u1-late", user: "user-1", at: 9))
        await store.save(order("u1-early", user: "user-1", at: 2))
        await store.save(order("u2", user: "user-2", at: 3))
        await store.save(order("u1-done", user: "user-1", status: .completed, at: 1))
        try await store.archive(orderID: "u1-done")

        let first = await store.openOrders(forUser: "user-1").map(\.id)
        XCTAssertEqual(first, ["u1-early", "u1-late"])
        let second = await store.openOrders(forUser: "user-2").map(\.id)
        XCTAssertEqual(second, ["u2"])
        let nobody = await store.openOrders(forUser: "user-3")
        XCTAssertTrue(nobody.isEmpty)
    }

    func testLookupByIDAndTransactionIDInOpenAndArchivedOrders() async throws {
        let store = InMemoryOrderStore(orders: [order("open", status: .purchased, transactionID: "tx-open")])
        await store.save(order("done", status: .completed, transactionID: "tx-done"))
        try await store.archive(orderID: "done")

        let openByID = await store.order(id: "open")
        let doneByID = await store.order(id: "done")
        let openByTransaction = await store.order(transactionID: "tx-open")
        let doneByTransaction = await store.order(transactionID: "tx-done")
        let unknownTransaction = await store.order(transactionID: "tx-unknown")
        XCTAssertEqual(openByID?.status, .purchased)
        XCTAssertEqual(doneByID?.status, .completed)
        XCTAssertEqual(openByTransaction?.id, "open")
        XCTAssertEqual(doneByTransaction?.id, "done")
        XCTAssertNil(unknownTransaction)

        let openIDs = await store.loadOpenOrders().orders.map(\.id)
        let archivedIDs = await store.archivedOrders().map(\.id)
        XCTAssertEqual(openIDs, ["open"])
        XCTAssertEqual(archivedIDs, ["done"])
    }

    func testArchivingAMissingOrderThrowsOrderNotFound() async throws {
        let store = InMemoryOrderStore()
        await store.save(order("done", status: .completed))
        try await store.archive(orderID: "done")
        for id in ["never-saved", "done"] {
            do {
                try await store.archive(orderID: id)
                XCTFail("archived '\(id)', which is not an open order")
            } catch let error as PurchaseKitError {
                XCTAssertEqual(error.code, .orderNotFound)
                XCTAssertEqual(error.orderID, id)
            }
        }
        let archived = await store.archivedOrders().map(\.id)
        XCTAssertEqual(archived, ["done"])
    }

    func testRemoveDeletesOpenOrArchivedOrdersAndTheirTransactionIndex() async throws {
        let store = InMemoryOrderStore()
        await store.save(order("open", transactionID: "tx-1"))
        await store.save(order("done", status: .completed, transactionID: "tx-2"))
        try await store.archive(orderID: "done")

        await store.remove(orderID: "open")
        await store.remove(orderID: "done")
        await store.remove(orderID: "never-saved") // not an error

        let byID = await store.order(id: "open")
        let archivedByID = await store.order(id: "done")
        let byTransaction1 = await store.order(transactionID: "tx-1")
        let byTransaction2 = await store.order(transactionID: "tx-2")
        let openCount = await store.loadOpenOrders().orders.count
        let archivedCount = await store.archivedOrders().count
        XCTAssertNil(byID)
        XCTAssertNil(archivedByID)
        XCTAssertNil(byTransaction1)
        XCTAssertNil(byTransaction2)
        XCTAssertEqual(openCount, 0)
        XCTAssertEqual(archivedCount, 0)
    }

    func testSavingAnArchivedOrderReopensIt() async throws {
        let store = InMemoryOrderStore()
        await store.save(order("o", status: .completed, transactionID: "tx-1"))
        try await store.archive(orderID: "o")

        // A refund arrives for the archived order.
        var revoked = order("o", status: .revoked, transactionID: "tx-1")
        revoked.hint = "refunded"
        await store.save(revoked)

        let open = await store.loadOpenOrders().orders
        let archived = await store.archivedOrders()
        let byTransaction = await store.order(transactionID: "tx-1")
        XCTAssertEqual(open, [revoked])
        XCTAssertTrue(archived.isEmpty)
        XCTAssertEqual(byTransaction, revoked)
        // And it can be archived again.
        try await store.archive(orderID: "o")
        let archivedAgain = await store.archivedOrders().map(\.id)
        XCTAssertEqual(archivedAgain, ["o"])
    }

    func testChangedTransactionIDUpdatesTheIndex() async throws {
        let store = InMemoryOrderStore()
        await store.save(order("o", status: .purchased, transactionID: "tx-old"))
        await store.save(order("o", status: .purchased, transactionID: "tx-new"))
        let old = await store.order(transactionID: "tx-old")
        let new = await store.order(transactionID: "tx-new")
        XCTAssertNil(old)
        XCTAssertEqual(new?.id, "o")

        // Dropping the transaction drops the index entry too.
        await store.save(order("o", status: .purchased))
        let none = await store.order(transactionID: "tx-new")
        XCTAssertNil(none)
    }

    func testChangedTransactionIDOfAnArchivedOrderUpdatesTheIndex() async throws {
        let store = InMemoryOrderStore()
        await store.save(order("o", status: .completed, transactionID: "tx-old"))
        try await store.archive(orderID: "o")
        await store.save(order("o", status: .completed, transactionID: "tx-new"))
        let old = await store.order(transactionID: "tx-old")
        let new = await store.order(transactionID: "tx-new")
        XCTAssertNil(old)
        XCTAssertEqual(new?.id, "o")
    }

    func testInitialOrdersAreIndexedByTransaction() async throws {
        let store = InMemoryOrderStore(orders: [order("a", status: .purchased, transactionID: "tx-a"), order("b")])
        let found = await store.order(transactionID: "tx-a")
        XCTAssertEqual(found?.id, "a")
        let open = await store.loadOpenOrders().orders.map(\.id)
        XCTAssertEqual(open, ["a", "b"])
    }

    func testOrdersForUserFollowSavesArchivesRemovalsAndAChangedUser() async throws {
        let store = InMemoryOrderStore()
        await store.save(order("a", user: "user-1", at: 3))
        await store.save(order("b", user: "user-1", status: .completed, at: 1))
        try await store.archive(orderID: "b")
        await store.save(order("c", user: "user-2", at: 2))
        var ids = await store.orders(forUser: "user-1").map(\.id)
        XCTAssertEqual(ids, ["b", "a"])
        ids = await store.openOrders(forUser: "user-1").map(\.id)
        XCTAssertEqual(ids, ["a"])

        // Saved again from the archive: still one order of user-1.
        await store.save(order("b", user: "user-1", status: .revoked, at: 1))
        ids = await store.orders(forUser: "user-1").map(\.id)
        XCTAssertEqual(ids, ["b", "a"])
        ids = await store.openOrders(forUser: "user-1").map(\.id)
        XCTAssertEqual(ids, ["b", "a"])

        // Saved under another user: it moves.
        await store.save(order("b", user: "user-2", status: .revoked, at: 1))
        ids = await store.orders(forUser: "user-1").map(\.id)
        XCTAssertEqual(ids, ["a"])
        ids = await store.orders(forUser: "user-2").map(\.id)
        XCTAssertEqual(ids, ["b", "c"])

        await store.remove(orderID: "a")
        let none = await store.orders(forUser: "user-1")
        XCTAssertTrue(none.isEmpty)
        ids = await store.orders(forUser: "user-2").map(\.id)
        XCTAssertEqual(ids, ["b", "c"])
    }

    func testInitialOrdersWithOneIDKeepTheLaterForItsUser() async throws {
        let store = InMemoryOrderStore(orders: [order("x", user: "user-1", at: 1), order("x", user: "user-2", at: 1)])
        let first = await store.orders(forUser: "user-1")
        let second = await store.orders(forUser: "user-2").map(\.userID)
        XCTAssertTrue(first.isEmpty)
        XCTAssertEqual(second, ["user-2"])
    }

    /// The user index against a full scan, after every step of a random
    /// history of saves (new, again, under another user, from the archive),
    /// archives and removals.
    func testOrdersForUserMatchAFullScanOverARandomHistory() async throws {
        let store = InMemoryOrderStore()
        var random = SeededRandomNumberGenerator(seed: 7)
        let users = ["user-1", "user-2", "user-3"]
        let statuses: [OrderStatus] = [.created, .purchasing, .purchased, .delivered, .completed, .revoked]
        for step in 0..<1_500 {
            let id = "order-\(Int.random(in: 0..<25, using: &random))"
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                await store.save(order(id, user: users.randomElement(using: &random)!, status: statuses.randomElement(using: &random)!,
                                       at: Double(Int.random(in: 0..<40, using: &random))))
            case 6..<9:
                try? await store.archive(orderID: id)
            default:
                await store.remove(orderID: id)
            }
            let all = await store.allOrders()
            let open = await store.loadOpenOrders().orders
            for user in users {
                let indexed = await store.orders(forUser: user)
                let indexedOpen = await store.openOrders(forUser: user)
                XCTAssertEqual(indexed, all.filter { $0.userID == user }, "step \(step), \(user)")
                XCTAssertEqual(indexedOpen, open.filter { $0.userID == user }, "step \(step), \(user)")
            }
        }
    }
}
