import Foundation
import XCTest
@testable import PurchaseKit

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
}
