import Foundation
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

    /// Through a real store on disk: once a snapshot holds many orders, the
    /// journal grows to that snapshot's size before the next one starts (with
    /// half the size, a store with a large archive rewrote it twice as often),
    /// and every order survives the snapshots.
    func testAStoreRewritesItsSnapshotOnlyOnceTheJournalIsAsLargeAsIt() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeJournalStore(directory, snapshotThreshold: 1)
        for number in 0..<100 { try await store.save(makeFullOrder("o-\(number)", status: .completed)) }
        // Snapshots ran while those saves went on: small updates until one
        // that holds all hundred orders (with receipts, over 20 KB) is written
        // and the journal after it is still short.
        var order = makeOrder("small", createdAt: testEpoch)
        var updates = 0
        func update() async throws {
            updates += 1
            order.hint = "update \(updates)"
            try await store.save(order)
            await store.waitUntilWritten()
        }
        repeat {
            try await update()
        } while store.state.withLock({ $0.snapshotBytes < 20_000 || $0.journalBytes >= $0.snapshotBytes / 2 })
            && updates < 10_000
        let (generation, snapshotSize) = store.state.withLock { ($0.generation, $0.snapshotBytes) }
        XCTAssertGreaterThan(snapshotSize, 20_000, "a hundred orders with receipts")

        var largestJournal = 0
        for _ in 1...10_000 {
            try await update()
            let (now, journal) = store.state.withLock { ($0.generation, $0.journalBytes) }
            if now != generation { break }
            XCTAssertLessThan(journal, snapshotSize, "no snapshot began with the journal at \(journal) bytes")
            largestJournal = journal
        }
        XCTAssertNotEqual(store.state.withLock { $0.generation }, generation, "a snapshot began at last")
        XCTAssertGreaterThan(largestJournal, snapshotSize * 9 / 10,
                             "the journal grew close to the snapshot's \(snapshotSize) bytes first")

        let (reopened, report) = try await reopen(store, directory)
        XCTAssertTrue(report.problems.isEmpty)
        XCTAssertEqual(report.orders.count, 101)
        let reloaded = try await reopened.order(id: "o-42")
        XCTAssertEqual(reloaded, makeFullOrder("o-42", status: .completed))
        let small = try await reopened.order(id: "small")
        XCTAssertEqual(small?.hint, order.hint, "the last update, after the snapshot")
        await reopened.close()
    }

    /// Every launch that writes leaves a journal file of its own; past
    /// ``JournalLoader/maximumJournalFiles`` of them, a launch folds them into
    /// a snapshot, so that short sessions never pile up files for every later
    /// launch to read, and every order survives the folding.
    func testJournalsLeftByManyShortLaunchesAreFoldedIntoASnapshot() async throws {
        let directory = try makeTemporaryDirectory(self)
        let launches = JournalLoader.maximumJournalFiles * 2
        var saved: [Order] = []
        for launch in 1...launches {
            let store = try makeJournalStore(directory)
            let report = try await store.loadOpenOrders()
            XCTAssertEqual(report.orders, saved, "launch \(launch)")
            XCTAssertTrue(report.problems.isEmpty, "launch \(launch): \(report.problems)")
            let order = makeOrder("o-\(launch)", createdAt: testEpoch.addingTimeInterval(Double(launch)))
            try await store.save(order)
            saved.append(order)
            await store.close()
            let journals = journalFiles(directory).filter { $0.hasPrefix(JournalFiles.journalPrefix) }
            XCTAssertLessThanOrEqual(journals.count, JournalLoader.maximumJournalFiles + 1, "launch \(launch): \(journals)")
        }
        XCTAssertEqual(journalFiles(directory).filter { $0.hasPrefix(JournalFiles.snapshotPrefix) }.count, 1)
        let last = try await makeJournalStore(directory).loadOpenOrders()
        XCTAssertEqual(last.orders, saved)
    }

    func testNoSecondSnapshotStartsWhileOneIsBeingWritten() {
        XCTAssertFalse(state(journal: 50_000, snapshot: 10, inProgress: true).wantsSnapshot(threshold: 1_000))
    }
}
