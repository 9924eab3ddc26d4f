import Foundation
import XCTest
@testable import PurchaseKit

/// The same behaviour from every built-in ``OrderStore``, so that tests run
/// against the in-memory store prove something about the file store too.
final class OrderStoreContractTests: XCTestCase {
    private func stores() throws -> [(String, any OrderStore)] {
        [("InMemoryOrderStore", InMemoryOrderStore()), ("FileOrderStore", try makeStore(makeTemporaryDirectory(self))),
         ("JournalOrderStore", try makeJournalStore(makeTemporaryDirectory(self))),
         // A snapshot after every record: the same answers while snapshots come and go.
         ("JournalOrderStore, snapshotting", try makeJournalStore(makeTemporaryDirectory(self), snapshotThreshold: 1)),
         ("JournalOrderStore, on the calling thread",
          try makeJournalStore(makeTemporaryDirectory(self), snapshotThreshold: 200, onCallingThread: true))]
    }

    func testATransactionClaimedByAnotherOrderStaysFindableWhenTheFirstIsRemovedOrChanged() async throws {
        for (name, store) in try stores() {
            var first = makeOrder("o-1", transactionID: "t-shared")
            let second = makeOrder("o-2", transactionID: "t-shared", createdAt: testEpoch.addingTimeInterval(1))
            try await store.save(first)
            try await store.save(second)  // The later save claims the transaction.
            first.transaction?.id = "t-own"
            try await store.save(first)
            let afterChange = try await store.order(transactionID: "t-shared")
            XCTAssertEqual(afterChange?.id, "o-2", name)
            try await store.remove(orderID: "o-1")
            let afterRemoval = try await store.order(transactionID: "t-shared")
            XCTAssertEqual(afterRemoval?.id, "o-2", name)
            let removedLink = try await store.order(transactionID: "t-own")
            XCTAssertNil(removedLink, name)
        }
    }

    func testASaveOfTheFirstOrderClaimsBackItsTransactionAndTokenEvenUnchanged() async throws {
        for (name, store) in try stores() {
            var first = makeOrder("o-1", transactionID: "t-shared")
            first.token = "token-shared"
            var second = makeOrder("o-2", transactionID: "t-shared", createdAt: testEpoch.addingTimeInterval(1))
            second.token = "token-shared"
            try await store.save(first)
            try await store.save(second)  // Claims both.
            first.metadata = ["note": "saved again"]
            try await store.save(first)  // The same links: the latest save holds them.
            let byTransaction = try await store.order(transactionID: "t-shared")
            XCTAssertEqual(byTransaction?.id, "o-1", name)
            let byToken = try await store.order(token: "token-shared")
            XCTAssertEqual(byToken?.id, "o-1", name)
            try await store.save(second)  // And back again, once more.
            let again = try await store.order(token: "token-shared")
            XCTAssertEqual(again?.id, "o-2", name)
            second.metadata = ["note": "an ordinary save"]
            try await store.save(second)
            let stays = try await store.order(transactionID: "t-shared")
            XCTAssertEqual(stays?.id, "o-2", name)
        }
    }

    /// A save straight into the archive leaves what a save and then an archive move leave.
    func testASaveIntoTheArchiveIsASaveThenAnArchiveMove() async throws {
        var archiving = 0
        for (name, store) in try stores() {
            guard let mover = store as? any ArchivingOrderStore else { continue }
            archiving += 1
            // Asked first, so that a store listing each user's orders keeps its lists up to date from here.
            let before = try await store.orders(forUser: "u")
            XCTAssertEqual(before, [], name)
            var first = makeOrder("o-1", user: "u", transactionID: "t-shared")
            first.token = "token-1"
            try await store.save(first)
            try await store.save(makeOrder("o-2", user: "u", transactionID: "t-shared", createdAt: testEpoch.addingTimeInterval(1)))
            first.status = .completed
            first.metadata = ["note": "completed"]
            try await mover.saveArchived(first)  // Claims the transaction back, as a save does.
            try await mover.saveArchived(makeOrder("o-3", user: "u", status: .failed))  // Never open.

            let open = try await store.loadOpenOrders().orders.map(\.id)
            XCTAssertEqual(open, ["o-2"], name)
            let openOfUser = try await store.openOrders(forUser: "u").map(\.id)
            XCTAssertEqual(openOfUser, ["o-2"], name)
            let ofUser = try await store.orders(forUser: "u").map(\.id).sorted()
            XCTAssertEqual(ofUser, ["o-1", "o-2", "o-3"], name)
            let stored = try await store.order(id: "o-1")
            XCTAssertEqual(stored?.metadata, ["note": "completed"], name)
            XCTAssertEqual(stored?.status, .completed, name)
            let byTransaction = try await store.order(transactionID: "t-shared")
            XCTAssertEqual(byTransaction?.id, "o-1", name)
            let byToken = try await store.order(token: "token-1")
            XCTAssertEqual(byToken?.id, "o-1", name)
            do {
                try await store.archive(orderID: "o-1")
                XCTFail("\(name): an archived order was archived again")
            } catch let error as PurchaseKitError {
                XCTAssertEqual(error.code, .orderNotFound, name)
            }
        }
        XCTAssertEqual(archiving, 4, "the in-memory store and the three journal stores")
    }

    func testArchivingAnOrderDoesNotTakeBackATransactionOrTokenALaterSaveClaimed() async throws {
        for (name, store) in try stores() {
            var first = makeOrder("o-1", transactionID: "t-shared", status: .failed)
            first.token = "token-shared"
            var second = makeOrder("o-2", transactionID: "t-shared", createdAt: testEpoch.addingTimeInterval(1))
            second.token = "token-shared"
            try await store.save(first)
            try await store.save(second)  // The later save claims both.
            try await store.archive(orderID: "o-1")  // A move, not a save.
            let byTransaction = try await store.order(transactionID: "t-shared")
            XCTAssertEqual(byTransaction?.id, "o-2", name)
            let byToken = try await store.order(token: "token-shared")
            XCTAssertEqual(byToken?.id, "o-2", name)
        }
    }

    func testOpenArchiveReopenAndLookupsAgree() async throws {
        for (name, store) in try stores() {
            var order = makeOrder("o-1", user: "u", transactionID: "t-1", status: .completed)
            try await store.save(order)
            try await store.save(makeOrder("o-2", user: "u", createdAt: testEpoch.addingTimeInterval(1)))
            try await store.archive(orderID: "o-1")
            let open = try await store.openOrders(forUser: "u")
            XCTAssertEqual(open.map(\.id), ["o-2"], name)
            let archived = try await store.order(transactionID: "t-1")
            XCTAssertEqual(archived, order, name)
            order.status = .revoked
            try await store.save(order)
            let reopened = try await store.loadOpenOrders().orders
            XCTAssertEqual(reopened.map(\.id), ["o-1", "o-2"], name)
            let error = await assertThrows(.orderNotFound) { try await store.archive(orderID: "missing") }
            XCTAssertEqual(error?.orderID, "missing", name)
        }
    }

    func testOrdersOfAUserIncludeArchivedOnesAndNoOneElses() async throws {
        for (name, store) in try stores() {
            try await store.save(makeOrder("a-1", user: "alice", transactionID: "t-1", status: .completed))
            try await store.save(makeOrder("a-2", user: "alice", createdAt: testEpoch.addingTimeInterval(1)))
            try await store.save(makeOrder("b-1", user: "bob", transactionID: "t-2",
                                           createdAt: testEpoch.addingTimeInterval(2), status: .completed))
            try await store.archive(orderID: "a-1")
            try await store.archive(orderID: "b-1")
            let alice = try await store.orders(forUser: "alice")
            XCTAssertEqual(alice.map(\.id), ["a-1", "a-2"], name)
            let bob = try await store.orders(forUser: "bob")
            XCTAssertEqual(bob.map(\.id), ["b-1"], name)
            let nobody = try await store.orders(forUser: "carol")
            XCTAssertTrue(nobody.isEmpty, name)
        }
    }

    func testATokenResolvesItsOrderOpenFailedOrArchivedAndOnlyWhileTheOrderHoldsIt() async throws {
        for (name, store) in try stores() {
            var failed = makeOrder("o-failed", status: .failed)
            failed.token = "token-failed"
            var done = makeOrder("o-done", transactionID: "t-done", createdAt: testEpoch.addingTimeInterval(1), status: .completed)
            done.token = "token-done"
            try await store.save(failed)
            try await store.save(done)
            try await store.archive(orderID: "o-done")

            let open = try await store.order(token: "token-failed")
            XCTAssertEqual(open, failed, name)
            let archived = try await store.order(token: "token-done")
            XCTAssertEqual(archived, done, name)
            let unknown = try await store.order(token: "token-nobody")
            XCTAssertNil(unknown, name)

            // A new token replaces the old link; another order's claim survives the first one's removal.
            failed.token = "token-renewed"
            try await store.save(failed)
            let old = try await store.order(token: "token-failed")
            XCTAssertNil(old, name)
            var claimant = makeOrder("o-claimant", createdAt: testEpoch.addingTimeInterval(2))
            claimant.token = "token-renewed"
            try await store.save(claimant)
            try await store.remove(orderID: "o-failed")
            let claimed = try await store.order(token: "token-renewed")
            XCTAssertEqual(claimed?.id, "o-claimant", name)
            try await store.remove(orderID: "o-done")
            let removed = try await store.order(token: "token-done")
            XCTAssertNil(removed, name)
        }
    }
}
