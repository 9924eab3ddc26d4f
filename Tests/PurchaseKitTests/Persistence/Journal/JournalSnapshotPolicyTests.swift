@testable import PurchaseKit
import XCTest

/// When a journal store starts a new snapshot: once the journal has grown past
/// the configured threshold and past the last snapshot's size, never while a
/// snapshot is being written.
final class JournalSnapshotPolicyTests: XCTestCase {
    private func state(journal: Int, snapshot: Int, inProgress: Bool = false) -> JournalState {
        var state = JournalState()
        state.journalBytes = journal
        state.snapshotBytes = snapshot
        state.snapshotInProgress = inProgress
        return state
    }

    func testASmallStoreSnapshotsOnceTheJournalPassesTheThreshold() {
        XCTAssertFalse(state(journal: 999, snapshot: 10).wantsSnapshot(threshold: 1_000))
        XCTAssertTrue(state(journal: 1_000, snapshot: 10).wantsSnapshot(threshold: 1_000))
    }

    /// A large archive makes a large snapshot: the journal must grow as large
    /// before it is rewritten, so that snapshots cost no more than the journal.
    func testALargeStoreWaitsUntilTheJournalIsAsLargeAsItsSnapshot() {
        XCTAssertFalse(state(journal: 5_000, snapshot: 8_000).wantsSnapshot(threshold: 1_000))
        XCTAssertFalse(state(journal: 7_999, snapshot: 8_000).wantsSnapshot(threshold: 1_000))
        XCTAssertTrue(state(journal: 8_000, snapshot: 8_000).wantsSnapshot(threshold: 1_000))
    }

    func testNoSecondSnapshotStartsWhileOneIsBeingWritten() {
        XCTAssertFalse(state(journal: 50_000, snapshot: 10, inProgress: true).wantsSnapshot(threshold: 1_000))
    }
}
