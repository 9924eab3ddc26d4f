import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator

/// ``OrderStore/orders(originalTransactionID:)`` from every built-in store:
/// every order holding a transaction of one purchase (its first transaction,
/// its renewals, a change of tier), open, archived, compacted, after a
/// relaunch, and only while each order still holds such a transaction.
final class OrderStorePurchaseLookupTests: XCTestCase {
    /// A store, and how to open its folder again as a relaunch does (nil: it keeps nothing).
    private struct Subject {
        var name: String
        var store: any OrderStore
        /// Closes the store given and opens its folder again.
        var reopen: ((any OrderStore) async throws -> any OrderStore)?
        var compact: (any OrderStore) async throws -> Void = { _ in }
    }

    private func subjects() throws -> [Subject] {
        let fileFolder = try makeTemporaryDirectory(self)
        let journalFolder = try makeTemporaryDirectory(self)
        let clock = ManualClock(start: testEpoch)
        let journal = try makeJournalStore(journalFolder, clock: clock, archiveRetention: 0)
        return [
            Subject(name: "InMemoryOrderStore", store: InMemoryOrderStore()),
            Subject(name: "FileOrderStore", store: try makeFileStore(fileFolder, clock),
                    reopen: { _ in try self.makeFileStore(fileFolder, clock) },
                    compact: { clock.advance(by: 86_400); try await ($0 as? FileOrderStore)?.compactArchive() }),
            Subject(name: "JournalOrderStore", store: journal,
                    reopen: { current in
                        await (current as? JournalOrderStore)?.close()
                        return try makeJournalStore(journalFolder, clock: clock, archiveRetention: 0)
                    },
                    compact: { clock.advance(by: 86_400); try await ($0 as? JournalOrderStore)?.compactArchive() }),
        ]
    }

    private func makeFileStore(_ folder: URL, _ clock: ManualClock) throws -> FileOrderStore {
        try FileOrderStore(directory: folder, configuration: .testing(POSIXFileSystem(), clock: clock, archiveRetention: 0))
    }

    /// An order of `user` holding transaction `id` of the purchase `original`.
    private func order(_ orderID: String, _ user: String, transaction id: String, of original: String,
                       at offset: TimeInterval, status: OrderStatus = .completed) -> Order {
        var order = makeOrder(orderID, user: user, transactionID: id, createdAt: testEpoch.addingTimeInterval(offset),
                              status: status)
        order.transaction?.originalID = original
        return order
    }

    private func ids(_ store: any OrderStore, _ original: String) async throws -> [String] {
        try await store.orders(originalTransactionID: original).map(\.id)
    }

    func testEveryOrderOfAPurchaseIsFoundWhereverItRests() async throws {
        for subject in try subjects() {
            let store = subject.store
            let name = subject.name
            try await store.save(order("o-first", "alice", transaction: "t-1", of: "t-1", at: 0))
            try await store.save(order("o-renewal", "alice", transaction: "t-2", of: "t-1", at: 10))
            try await store.save(order("o-upgrade", "bob", transaction: "t-3", of: "t-1", at: 20, status: .purchased))
            try await store.save(order("o-other", "carol", transaction: "t-9", of: "t-9", at: 30))
            try await store.save(makeOrder("o-unpaid", user: "dave", createdAt: testEpoch.addingTimeInterval(40)))

            var found = try await ids(store, "t-1")
            XCTAssertEqual(found, ["o-first", "o-renewal", "o-upgrade"], "\(name): oldest first")
            found = try await ids(store, "t-9")
            XCTAssertEqual(found, ["o-other"], name)
            found = try await ids(store, "t-2")
            XCTAssertEqual(found, [], "\(name): a renewal's id names no purchase")
            found = try await ids(store, "t-none")
            XCTAssertEqual(found, [], name)

            try await store.archive(orderID: "o-first")
            try await store.archive(orderID: "o-renewal")
            found = try await ids(store, "t-1")
            XCTAssertEqual(found, ["o-first", "o-renewal", "o-upgrade"], "\(name): archived")
            let archived = try await store.orders(originalTransactionID: "t-1").first
            XCTAssertEqual(archived?.transaction?.id, "t-1", "\(name): whole orders, not ids")

            guard let reopen = subject.reopen else { continue }
            var reopened = try await reopen(store)
            _ = try await reopened.loadOpenOrders()
            found = try await ids(reopened, "t-1")
            XCTAssertEqual(found, ["o-first", "o-renewal", "o-upgrade"], "\(name): after a relaunch")
            try await subject.compact(reopened)
            found = try await ids(reopened, "t-1")
            XCTAssertEqual(found, ["o-first", "o-renewal", "o-upgrade"], "\(name): compacted")
            let compacted = try await reopened.orders(originalTransactionID: "t-1").first
            XCTAssertEqual(compacted?.transaction?.receipt, Data(), "\(name): the archived ones were compacted")
            reopened = try await reopen(reopened)
            _ = try await reopened.loadOpenOrders()
            found = try await ids(reopened, "t-1")
            XCTAssertEqual(found, ["o-first", "o-renewal", "o-upgrade"], "\(name): compacted, after a relaunch")
        }
    }

    func testAnOrderLeavesThePurchaseWhenItNoLongerHoldsOneOfItsTransactions() async throws {
        for subject in try subjects() {
            let store = subject.store
            let name = subject.name
            try await store.save(order("o-first", "alice", transaction: "t-1", of: "t-1", at: 0))
            var renewal = order("o-renewal", "alice", transaction: "t-2", of: "t-1", at: 10)
            try await store.save(renewal)
            var upgrade = order("o-upgrade", "bob", transaction: "t-3", of: "t-1", at: 20)
            try await store.save(upgrade)

            upgrade.transaction?.originalID = "t-3"  // Saved again as a purchase of its own.
            try await store.save(upgrade)
            var found = try await ids(store, "t-1")
            XCTAssertEqual(found, ["o-first", "o-renewal"], name)
            found = try await ids(store, "t-3")
            XCTAssertEqual(found, ["o-upgrade"], name)

            renewal.transaction = nil
            try await store.save(renewal)
            found = try await ids(store, "t-1")
            XCTAssertEqual(found, ["o-first"], name)
            try await store.remove(orderID: "o-first")
            found = try await ids(store, "t-1")
            XCTAssertEqual(found, [], name)

            guard let reopen = subject.reopen else { continue }
            let reopened = try await reopen(store)
            _ = try await reopened.loadOpenOrders()
            found = try await ids(reopened, "t-1")
            XCTAssertEqual(found, [], "\(name): after a relaunch")
            found = try await ids(reopened, "t-3")
            XCTAssertEqual(found, ["o-upgrade"], "\(name): after a relaunch")
        }
    }

    func testAFileOrderStoreFolderImportedByTheJournalFindsThePurchasesArchivedOrders() async throws {
        let folder = try makeTemporaryDirectory(self)
        let clock = ManualClock(start: testEpoch)
        let legacy = try makeFileStore(folder, clock)
        try await legacy.save(order("o-first", "alice", transaction: "t-1", of: "t-1", at: 0))
        try await legacy.save(order("o-upgrade", "bob", transaction: "t-3", of: "t-1", at: 20))
        try await legacy.archive(orderID: "o-first")
        try await legacy.archive(orderID: "o-upgrade")
        // The concrete type answers too, not only through the protocol.
        let direct = try await legacy.orders(originalTransactionID: "t-1").map(\.id)
        XCTAssertEqual(direct, ["o-first", "o-upgrade"])

        let journal = try makeJournalStore(folder, clock: clock)
        _ = try await journal.loadOpenOrders()
        var found = try await journal.orders(originalTransactionID: "t-1").map(\.id)
        XCTAssertEqual(found, ["o-first", "o-upgrade"], "in the import's own session")
        let reopened = try await reopen(journal, folder).0
        found = try await reopened.orders(originalTransactionID: "t-1").map(\.id)
        XCTAssertEqual(found, ["o-first", "o-upgrade"], "after a relaunch")
    }

    func testAStoreWithoutTheLookupAnswersThePurchasesFirstOrder() async throws {
        // The protocol's default, for stores written before the lookup.
        let base = InMemoryOrderStore()
        await base.save(order("o-first", "alice", transaction: "t-1", of: "t-1", at: 0))
        await base.save(order("o-renewal", "alice", transaction: "t-2", of: "t-1", at: 10))
        let store = NoSpendsStore(base: base)  // written before the lookup too
        var found = try await ids(store, "t-1")
        XCTAssertEqual(found, ["o-first"])
        found = try await ids(store, "t-2")
        XCTAssertEqual(found, [], "the holder of a renewal is no purchase's first order")
    }
}
