import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator

final class JournalOrderStoreTests: XCTestCase {
    func testEveryFieldOfEveryPlaceSurvivesAReopen() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeJournalStore(directory)
        let open = makeFullOrder("o-open")
        var archived = makeFullOrder("o-archived", user: "user-2", status: .completed)
        archived.token = nil
        archived.transaction?.orderToken = nil
        let plain = makeOrder("o-plain", status: .created)
        try await store.save(open)
        try await store.save(archived)
        try await store.save(plain)
        try await store.archive(orderID: "o-archived")

        let (reopened, report) = try await reopen(store, directory)
        XCTAssertEqual(report.orders, [open, plain].sorted { $0.createdAt < $1.createdAt })
        XCTAssertTrue(report.problems.isEmpty, "\(report.problems)")
        let found = try await reopened.order(id: "o-archived")
        XCTAssertEqual(found, archived)
        let byTransaction = try await reopened.order(transactionID: "t-o-archived")
        XCTAssertEqual(byTransaction, archived)
        let byToken = try await reopened.order(token: "token-o-open")
        XCTAssertEqual(byToken, open)
        let history = try await reopened.orders(forUser: "user-2")
        XCTAssertEqual(history, [archived])
    }
}

extension JournalOrderStoreTests {
    /// Each user's orders are indexed at the first question about a user; an
    /// order that changes hands, is archived or reopened is found under the
    /// right user whether the question came before or after the change.
    func testAnOrderIsFoundUnderItsCurrentUserWhenTheIndexIsBuiltBeforeOrAfterAChange() async throws {
        for asksFirst in [true, false] {
            let directory = try makeTemporaryDirectory(self)
            let store = try makeJournalStore(directory)
            var order = makeOrder("o-1", user: "", transactionID: "t-1")
            try await store.save(order)
            try await store.save(makeOrder("o-2", user: "bob", createdAt: testEpoch.addingTimeInterval(1)))
            if asksFirst {
                let unassigned = try await store.openOrders(forUser: "")
                XCTAssertEqual(unassigned.map(\.id), ["o-1"])
            }
            order.userID = "alice"
            try await store.save(order)
            let nobody = try await store.openOrders(forUser: "")
            XCTAssertEqual(nobody, [], "asks first: \(asksFirst)")
            let alice = try await store.openOrders(forUser: "alice")
            XCTAssertEqual(alice, [order], "asks first: \(asksFirst)")
            order.status = .completed
            try await store.save(order)
            try await store.archive(orderID: "o-1")
            let aliceOpen = try await store.openOrders(forUser: "alice")
            XCTAssertEqual(aliceOpen, [])
            let aliceAll = try await store.orders(forUser: "alice")
            XCTAssertEqual(aliceAll, [order])
            order.status = .revoked
            try await store.save(order)
            let reopened = try await store.openOrders(forUser: "alice")
            XCTAssertEqual(reopened, [order])
            try await store.remove(orderID: "o-1")
            let afterRemoval = try await store.orders(forUser: "alice")
            XCTAssertEqual(afterRemoval, [])
            let bob = try await store.orders(forUser: "bob")
            XCTAssertEqual(bob.map(\.id), ["o-2"])
        }
    }
}
