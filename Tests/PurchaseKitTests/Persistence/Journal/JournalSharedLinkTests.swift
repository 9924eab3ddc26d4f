import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator

/// A transaction id or token that two orders hold resolves to the order
/// saved last, as every store answers (see ``OrderStoreContractTests``). A
/// snapshot must keep that answer, and the other holder must stay findable
/// once the first lets the link go: a lookup that answers none for an order
/// holding the transaction lets a replayed transaction be credited again.
final class JournalSharedLinkTests: XCTestCase {
    /// Writes a snapshot of everything now and waits for it.
    private func snapshot(_ store: JournalOrderStore) async throws {
        let (outcomes, outcome) = AsyncStream<Result<Int, FileSystemError>>.makeStream()
        let begun = store.state.withLock { s in store.beginSnapshot(&s) { outcome.yield($0) } }
        store.startSnapshot(begun)
        var results = outcomes.makeAsyncIterator()
        _ = try await results.next()?.get()
    }

    func testTheLastOrderToClaimATransactionAndATokenKeepsThemThroughASnapshot() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeJournalStore(directory)
        _ = try await store.loadOpenOrders()
        // The claimant was created first: a snapshot lists open orders oldest first.
        var first = makeOrder("o-first", transactionID: "t-shared", createdAt: testEpoch.addingTimeInterval(1))
        first.token = "token-shared"
        var claimant = makeOrder("o-claimant", transactionID: "t-shared", createdAt: testEpoch)
        claimant.token = "token-shared"
        try await store.save(first)
        try await store.save(claimant)
        try await snapshot(store)

        let (reopened, _) = try await reopen(store, directory)
        let byTransaction = try await reopened.order(transactionID: "t-shared")
        XCTAssertEqual(byTransaction?.id, "o-claimant", "the snapshot gave the transaction back to the order that lost it")
        let byToken = try await reopened.order(token: "token-shared")
        XCTAssertEqual(byToken?.id, "o-claimant")
        first.transaction?.id = "t-own"
        first.token = "token-own"
        try await reopened.save(first)
        let afterChange = try await reopened.order(transactionID: "t-shared")
        XCTAssertEqual(afterChange?.id, "o-claimant", "an order holding the transaction was not found")
        let tokenAfterChange = try await reopened.order(token: "token-shared")
        XCTAssertEqual(tokenAfterChange?.id, "o-claimant", "an order holding the token was not found")
        await reopened.close()
    }

    // MARK: Moves that are not saves

    /// Asserts that the shared transaction id and token resolve to `expected`.
    private func assertSharedLinks(_ store: JournalOrderStore, resolveTo expected: String, _ when: String,
                                   file: StaticString = #filePath, line: UInt = #line) async throws {
        let byTransaction = try await store.order(transactionID: "t-shared")
        XCTAssertEqual(byTransaction?.id, expected, "\(when): the transaction id went to an order not saved last", file: file, line: line)
        let byToken = try await store.order(token: "token-shared")
        XCTAssertEqual(byToken?.id, expected, "\(when): the token went to an order not saved last", file: file, line: line)
    }

    /// Two orders holding "t-shared" and "token-shared": `older` saved first, `newer` later.
    private func sharedHolders() -> (older: Order, newer: Order) {
        var older = makeOrder("o-older", transactionID: "t-shared", status: .failed)
        older.token = "token-shared"
        var newer = makeOrder("o-newer", transactionID: "t-shared", createdAt: testEpoch.addingTimeInterval(1))
        newer.token = "token-shared"
        return (older, newer)
    }

    /// Closes `store` and opens its folder again with `clock` and a one-day retention.
    private func relaunch(_ store: JournalOrderStore, _ directory: URL, clock: ManualClock) async throws -> JournalOrderStore {
        await store.close()
        let next = try makeJournalStore(directory, clock: clock, archiveRetention: 86_400)
        _ = try await next.loadOpenOrders()
        return next
    }

    /// A journal store with one day of archive retention, where the older
    /// holder was saved and archived, then the newer one saved.
    private func olderArchivedThenNewerSaved() async throws
        -> (directory: URL, clock: ManualClock, store: JournalOrderStore, older: Order, newer: Order) {
        let directory = try makeTemporaryDirectory(self)
        let clock = ManualClock(start: testEpoch)
        let store = try makeJournalStore(directory, clock: clock, archiveRetention: 86_400)
        let (older, newer) = sharedHolders()
        try await store.save(older)
        try await store.archive(orderID: older.id)
        try await store.save(newer)
        return (directory, clock, store, older, newer)
    }

    /// Compaction rewrites an archived order in a smaller form; it is not a
    /// save, so it must not take back the transaction id and token that an
    /// order saved after it claimed, neither in memory nor in the snapshot
    /// it writes.
    func testCompactingAnOlderHolderLeavesTheTransactionAndTokenWithTheOrderSavedLast() async throws {
        let (directory, clock, store, older, newer) = try await olderArchivedThenNewerSaved()
        try await assertSharedLinks(store, resolveTo: newer.id, "before the compaction")

        clock.advance(by: 2 * 86_400)
        let compacted = try await store.compactArchive()
        XCTAssertEqual(compacted, 1, "the older order is past its retention")
        let compactedOlder = try await store.order(id: older.id)
        XCTAssertEqual(compactedOlder, CompactOrderRecord.compact(older))
        try await assertSharedLinks(store, resolveTo: newer.id, "after the compaction")

        let reopened = try await relaunch(store, directory, clock: clock)
        try await assertSharedLinks(reopened, resolveTo: newer.id, "after a launch from the compaction's snapshot")
        await reopened.close()
    }

    /// The same when the compaction happens while a launch loads the folder:
    /// the launch's own answers, and the snapshot it writes for the next one.
    func testCompactingAtLaunchLeavesTheTransactionAndTokenWithTheOrderSavedLast() async throws {
        let (directory, clock, store, older, newer) = try await olderArchivedThenNewerSaved()

        clock.advance(by: 2 * 86_400)
        let launched = try await relaunch(store, directory, clock: clock)
        let compactedOlder = try await launched.order(id: older.id)
        XCTAssertEqual(compactedOlder, CompactOrderRecord.compact(older), "the launch compacts the older order")
        try await assertSharedLinks(launched, resolveTo: newer.id, "after a launch that compacted")

        let relaunched = try await relaunch(launched, directory, clock: clock)
        try await assertSharedLinks(relaunched, resolveTo: newer.id, "after a launch from the compacting launch's snapshot")
        await relaunched.close()
    }

    /// Archiving moves an order out of the open ones; it is not a save either
    /// (``InMemoryOrderStore`` leaves the links alone), so an older holder
    /// archived after a newer one claimed the links must not take them back:
    /// not live, not when a launch replays the journal, not through a snapshot.
    func testArchivingAnOlderHolderLeavesTheTransactionAndTokenWithTheOrderSavedLast() async throws {
        let directory = try makeTemporaryDirectory(self)
        let clock = ManualClock(start: testEpoch)
        let store = try makeJournalStore(directory, clock: clock, archiveRetention: 86_400)
        let (older, newer) = sharedHolders()
        try await store.save(older)
        try await store.save(newer)
        // A question about the user first, so that the move also updates the index of the user's orders.
        let openBefore = try await store.openOrders(forUser: older.userID)
        XCTAssertEqual(openBefore.map(\.id), [older.id, newer.id])
        try await store.archive(orderID: older.id)
        try await assertSharedLinks(store, resolveTo: newer.id, "after the archive move")
        let openAfter = try await store.openOrders(forUser: older.userID)
        XCTAssertEqual(openAfter.map(\.id), [newer.id], "the archived order left the user's open orders")
        let history = try await store.orders(forUser: older.userID)
        XCTAssertEqual(history.map(\.id), [older.id, newer.id], "the archived order stays among the user's orders")

        let replayed = try await relaunch(store, directory, clock: clock)
        try await assertSharedLinks(replayed, resolveTo: newer.id, "after a launch that replayed the archive move")
        try await snapshot(replayed)
        let fromSnapshot = try await relaunch(replayed, directory, clock: clock)
        try await assertSharedLinks(fromSnapshot, resolveTo: newer.id, "after a launch from a snapshot")

        // Past the retention the older order is compacted at launch: still the newer one's.
        clock.advance(by: 2 * 86_400)
        let compacting = try await relaunch(fromSnapshot, directory, clock: clock)
        let compactedOlder = try await compacting.order(id: older.id)
        XCTAssertEqual(compactedOlder, CompactOrderRecord.compact(older))
        try await assertSharedLinks(compacting, resolveTo: newer.id, "after a launch that compacted")
        await compacting.close()
    }
}
