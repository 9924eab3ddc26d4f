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

    /// A launch counts what it read toward the next snapshot, as the process
    /// that wrote the files did: the size of the snapshot and the records of
    /// the journals after it. Counting none, a store whose every session
    /// writes a little would wait for a whole threshold of new records per
    /// launch, and a large snapshot would be rewritten after a short journal.
    func testALaunchCountsTheSnapshotAndJournalsItReadTowardTheNextSnapshot() async throws {
        let directory = try makeTemporaryDirectory(self)
        // No reserved room: each file's size is where its records end.
        let first = try makeJournalStore(directory, snapshotThreshold: 1, reservation: 0)
        try await first.save(makeFullOrder("o-1", status: .completed))
        await first.waitUntilWritten()
        await first.close()
        let second = try makeJournalStore(directory, reservation: 0)
        try await second.save(makeFullOrder("o-2", status: .completed))
        await second.close()

        func size(_ name: String) throws -> Int {
            try XCTUnwrap(FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("journal/\(name)").path)[.size] as? Int)
        }
        let files = journalFiles(directory)
        let snapshot = try size(try XCTUnwrap(files.first { $0.hasPrefix(JournalFiles.snapshotPrefix) }))
        let journals = try files.filter { $0.hasPrefix(JournalFiles.journalPrefix) }.map(size).reduce(0, +)
        XCTAssertGreaterThan(snapshot, 0)
        XCTAssertGreaterThan(journals, 0)

        let third = try makeJournalStore(directory)
        let report = try await third.loadOpenOrders()
        XCTAssertEqual(report.orders.map(\.id), ["o-1", "o-2"])
        XCTAssertTrue(report.problems.isEmpty, "\(report.problems)")
        XCTAssertEqual(third.state.withLock { $0.snapshotBytes }, snapshot)
        XCTAssertEqual(third.state.withLock { $0.journalBytes }, journals)
        await third.close()
    }

    func testNoSecondSnapshotStartsWhileOneIsBeingWritten() {
        XCTAssertFalse(state(journal: 50_000, snapshot: 10, inProgress: true).wantsSnapshot(threshold: 1_000))
    }
}
