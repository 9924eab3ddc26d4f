import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A journal cut at every byte, with garbage after it, with a record torn in
/// the middle, and a damaged snapshot: the store opens, keeps every whole
/// record, sets aside the rest with a typed problem, and the next launch is clean.
final class JournalDamageTests: XCTestCase {
    private let manager = FileManager.default

    /// A journal of a header and four records, and the file size after each.
    private func writeSmallJournal(_ directory: URL) async throws -> (file: URL, ends: [Int], states: [[String: StoredState]]) {
        // No reserved room: the file's size is where its records end.
        let store = try makeJournalStore(directory, reservation: 0)
        var states: [[String: StoredState]] = [[:]]
        var ends = [JournalFrame.headerSize + 19]  // the header record: kind, format, file kind, generation, orders
        var current: [String: StoredState] = [:]
        let a = makeOrder("o-a", transactionID: "t-a"), b = makeOrder("o-b", user: "user-2", status: .completed)
        var a2 = a
        a2.status = .delivered
        for step in 0..<4 {
            switch step {
            case 0: try await store.save(a); current["o-a"] = .open(a)
            case 1: try await store.save(b); current["o-b"] = .open(b)
            case 2: try await store.archive(orderID: "o-b"); current["o-b"] = .archived(b)
            default: try await store.save(a2); current["o-a"] = .open(a2)
            }
            await store.waitUntilWritten()
            states.append(current)
            let file = try XCTUnwrap(journalFiles(directory).first { $0.hasPrefix("log-") })
            ends.append(try XCTUnwrap(manager.attributesOfItem(atPath: directory.appendingPathComponent("journal/\(file)").path)[.size] as? Int))
        }
        await store.close()
        let name = try XCTUnwrap(journalFiles(directory).first { $0.hasPrefix("log-") })
        return (directory.appendingPathComponent("journal/\(name)"), ends, states)
    }

    enum StoredState: Equatable {
        case open(Order), archived(Order)
    }

    private func contents(of store: JournalOrderStore) async throws -> (state: [String: StoredState], problems: [PurchaseKitError]) {
        let report = try await store.loadOpenOrders()
        var state: [String: StoredState] = [:]
        for order in report.orders { state[order.id] = .open(order) }
        for order in try await store.archivedOrders() {
            XCTAssertNil(state[order.id], "order \(order.id) is both open and archived")
            state[order.id] = .archived(order)
        }
        return (state, report.problems)
    }

    func testAJournalCutAtEveryByteKeepsEveryWholeRecordAndSetsAsideTheRest() async throws {
        let original = try makeTemporaryDirectory(self)
        let (file, ends, states) = try await writeSmallJournal(original)
        let bytes = try Data(contentsOf: file)
        XCTAssertEqual(ends.last, bytes.count)
        // Durability is not under test here: skip the flushes to make a thousand launches fast.
        let fileSystem = FaultyFileSystem()
        fileSystem.disableSync()
        for cut in 0...bytes.count {
            let directory = try makeTemporaryDirectory(self)
            try manager.createDirectory(at: directory.appendingPathComponent("journal"), withIntermediateDirectories: true)
            try bytes.prefix(cut).write(to: directory.appendingPathComponent("journal/\(file.lastPathComponent)"))
            let store = try makeJournalStore(directory, fileSystem: fileSystem)
            let found = try await contents(of: store)
            // Records ends[0] < ends[1] < ...; the header alone holds no order.
            let whole = ends.lastIndex { $0 <= cut }.map { $0 } ?? 0
            let expected = cut < ends[0] ? [:] : states[whole]
            XCTAssertEqual(found.state, expected, "cut at \(cut)")
            let isBoundary = cut == 0 || ends.contains(cut)
            XCTAssertEqual(found.problems.count, isBoundary ? 0 : 1, "cut at \(cut): \(found.problems)")
            if let problem = found.problems.first {
                XCTAssertEqual(problem.code, .persistenceCorrupt)
                XCTAssertTrue(problem.message.contains("moved to quarantine/"), problem.message)
                let kept = names(in: directory, "quarantine")
                XCTAssertEqual(kept.count, 1)
                let torn = try Data(contentsOf: directory.appendingPathComponent("quarantine/\(kept[0])"))
                XCTAssertEqual(torn, bytes[(cut < ends[0] ? 0 : ends[whole])..<cut], "cut at \(cut)")
            }
            await store.close()
            let again = try await contents(of: try makeJournalStore(directory, fileSystem: fileSystem))
            XCTAssertEqual(again.state, expected, "cut at \(cut), second launch")
            XCTAssertTrue(again.problems.isEmpty, "cut at \(cut), second launch: \(again.problems)")
        }
    }

    func testGarbageAfterTheLastRecordIsSetAsideAndZerosAreNot() async throws {
        let directory = try makeTemporaryDirectory(self)
        let (file, _, states) = try await writeSmallJournal(directory)
        var generator = SeededRandomNumberGenerator(seed: 7)
        // Garbage that even starts like a record: the magic, then a length and checksum that do not agree.
        let garbage = Data(JournalFrame.magic + (0..<200).map { _ in UInt8.random(in: 1...255, using: &generator) })
        try append(garbage, to: file)
        let store = try makeJournalStore(directory)
        let found = try await contents(of: store)
        XCTAssertEqual(found.state, states.last)
        XCTAssertEqual(found.problems.map(\.code), [.persistenceCorrupt])
        let kept = names(in: directory, "quarantine")
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent("quarantine/\(kept[0])")), garbage)
        await store.close()

        // A preallocated or zero-padded tail is no damage.
        let zeros = try makeTemporaryDirectory(self)
        let (zeroFile, _, zeroStates) = try await writeSmallJournal(zeros)
        try append(Data(count: 4096), to: zeroFile)
        let padded = try await contents(of: try makeJournalStore(zeros))
        XCTAssertEqual(padded.state, zeroStates.last)
        XCTAssertTrue(padded.problems.isEmpty, "\(padded.problems)")
    }

    /// A closed journal store holding three saved orders, and its journal file.
    private func journalOfThreeOrders() async throws -> (directory: URL, file: URL) {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeJournalStore(directory)
        let orders = (1...3).map { makeOrder("o-\($0)", createdAt: testEpoch.addingTimeInterval(Double($0))) }
        for order in orders { try await store.save(order) }
        await store.close()
        return (directory, directory.appendingPathComponent("journal/\(try XCTUnwrap(journalFiles(directory).first))"))
    }

    func testARecordTornInTheMiddleCostsThatRecordOnly() async throws {
        let (directory, file) = try await journalOfThreeOrders()
        var bytes = try Data(contentsOf: file)
        // The second record's middle: zeroed, as a torn sector reads back.
        let first = try XCTUnwrap(bytes.firstRange(of: Data("o-2".utf8)))
        bytes.replaceSubrange(first.lowerBound..<(first.lowerBound + 40), with: Data(count: 40))
        try bytes.write(to: file)

        let reopened = try makeJournalStore(directory)
        let report = try await reopened.loadOpenOrders()
        XCTAssertEqual(report.orders.map(\.id), ["o-1", "o-3"])
        XCTAssertEqual(report.problems.count, 1)
        XCTAssertEqual(report.problems.first?.code, .persistenceCorrupt)
        XCTAssertTrue(report.problems.first?.message.contains("are not a record") == true, "\(report.problems)")
        await reopened.close()
        let again = try await makeJournalStore(directory).loadOpenOrders()
        XCTAssertEqual(again.orders.map(\.id), ["o-1", "o-3"])
        XCTAssertTrue(again.problems.isEmpty)
        // The repair wrote a snapshot and dropped the damaged journal.
        XCTAssertEqual(journalFiles(directory).filter { $0.hasPrefix("log-") }, [])
        XCTAssertEqual(journalFiles(directory).filter { $0.hasPrefix("snapshot-") }.count, 1)
    }

    /// A store whose orders are in a snapshot and the journal after it, and the snapshot's file.
    private func snapshotStore(_ directory: URL, count: Int = 5) async throws -> (orders: [Order], file: URL) {
        let store = try makeJournalStore(directory, snapshotThreshold: 1)
        let orders = (1...count).map { makeOrder("o-\($0)", transactionID: "t-\($0)", createdAt: testEpoch.addingTimeInterval(Double($0))) }
        for order in orders {
            try await store.save(order)
            // Each save starts a snapshot; waiting for it makes the last one hold every order.
            await store.waitUntilWritten()
        }
        await store.close()
        let name = try XCTUnwrap(journalFiles(directory).last { $0.hasPrefix("snapshot-") })
        return (orders, directory.appendingPathComponent("journal/\(name)"))
    }

    func testADamagedSnapshotKeepsItsOtherOrders() async throws {
        let directory = try makeTemporaryDirectory(self)
        let (orders, file) = try await snapshotStore(directory)
        var bytes = try Data(contentsOf: file)
        XCTAssertGreaterThanOrEqual(orders.filter { bytes.firstRange(of: Data($0.id.utf8)) != nil }.count, 3)
        let second = try XCTUnwrap(bytes.firstRange(of: Data("o-2".utf8)))
        bytes[second.lowerBound + 10] ^= 0xFF
        try bytes.write(to: file)

        let store = try makeJournalStore(directory)
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.orders, orders.filter { $0.id != "o-2" })
        XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt])
        await store.close()
        let again = try await makeJournalStore(directory).loadOpenOrders()
        XCTAssertEqual(again.orders, report.orders)
        XCTAssertTrue(again.problems.isEmpty)
    }

    func testASnapshotCutAtARecordBoundaryIsReportedAsIncomplete() async throws {
        let directory = try makeTemporaryDirectory(self)
        let (orders, file) = try await snapshotStore(directory)
        let bytes = try Data(contentsOf: file)
        // Cut just before the last order's record: the end record goes with it, no byte is torn.
        let last = try XCTUnwrap(orders.last { bytes.firstRange(of: Data($0.id.utf8)) != nil })
        let id = try XCTUnwrap(bytes.firstRange(of: Data(last.id.utf8)))
        let start = try XCTUnwrap(bytes[..<id.lowerBound].lastRange(of: Data(JournalFrame.magic)))
        try bytes.prefix(upTo: start.lowerBound).write(to: file)

        let report = try await makeJournalStore(directory).loadOpenOrders()
        XCTAssertEqual(report.orders, orders.filter { $0.id != last.id })
        XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt])
        XCTAssertTrue(report.problems.first?.message.contains("without its last record") == true, "\(report.problems)")
    }

    func testARecordWithAValidChecksumButUnreadableContentIsSetAside() async throws {
        let directory = try makeTemporaryDirectory(self)
        // A put record whose order claims an encoding version from the future.
        let record = framedRecord([JournalRecord.Kind.put.rawValue, JournalIndex.Place.open.rawValue, 9, 0, 0, 0, 0])
        try await appendToJournal(of: makeOrder("o-1"), in: directory, record)

        let report = try await makeJournalStore(directory).loadOpenOrders()
        XCTAssertEqual(report.orders.map(\.id), ["o-1"])
        XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt])
        XCTAssertTrue(report.problems.first?.message.contains("newer PurchaseKit (encoding version 9)") == true, "\(report.problems)")
    }

    func testAForeignFileInTheJournalFolderIsMovedAside() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeJournalStore(directory)
        try await store.save(makeOrder("o-1"))
        await store.close()
        try Data("notes".utf8).write(to: directory.appendingPathComponent("journal/notes.txt"))
        let report = try await makeJournalStore(directory).loadOpenOrders()
        XCTAssertEqual(report.orders.map(\.id), ["o-1"])
        XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt])
        XCTAssertFalse(journalFiles(directory).contains("notes.txt"))
        XCTAssertTrue(names(in: directory, "quarantine").contains { $0.hasSuffix("notes.txt") })
    }

    func testAnEntryThatOnlyBearsASnapshotsNameIsSetAsideAndTheRealSnapshotStillCounts() async throws {
        let directory = try makeTemporaryDirectory(self)
        let (orders, _) = try await snapshotStore(directory)
        let impostor = directory.appendingPathComponent("journal/\(JournalFiles.snapshotName(0xFFFF))")
        XCTAssertEqual(mkfifo(impostor.path, 0o600), 0)
        let store = try makeJournalStore(directory)
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.orders, orders, "the real snapshot and its journal were read, and kept")
        XCTAssertEqual(report.problems.map(\.code), [.persistenceUnusableFile])
        XCTAssertFalse(FileManager.default.fileExists(atPath: impostor.path))
        await store.close()
        let again = try await makeJournalStore(directory).loadOpenOrders()
        XCTAssertEqual(again.orders, orders)
        XCTAssertTrue(again.problems.isEmpty)
    }

    func testAJournalFromANewerFormatIsRefusedAndLeftAlone() async throws {
        let directory = try makeTemporaryDirectory(self)
        try manager.createDirectory(at: directory.appendingPathComponent("journal"), withIntermediateDirectories: true)
        let header = framedRecord([JournalRecord.Kind.header.rawValue, 2, JournalRecord.FileKind.journal.rawValue, 1,
                                   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        let path = directory.appendingPathComponent("journal/\(JournalFiles.journalName(1))")
        try Data(header).write(to: path)

        let store = try makeJournalStore(directory)
        let error = await assertThrows(.persistenceReadFailed) { _ = try await store.loadOpenOrders() }
        XCTAssertTrue(error?.message.contains("newer PurchaseKit") == true, "\(String(describing: error))")
        XCTAssertEqual(try Data(contentsOf: path), Data(header))
    }

    /// The bounds of the whole record that holds `id` in `bytes`.
    private func recordRange(of id: String, in bytes: Data) throws -> Range<Int> {
        let found = try XCTUnwrap(bytes.firstRange(of: Data(id.utf8)))
        let start = try XCTUnwrap(bytes[..<found.lowerBound].lastRange(of: Data(JournalFrame.magic))).lowerBound
        let length = (0..<4).reduce(0) { $0 | Int(bytes[start + 4 + $1]) << (8 * $1) }
        return start..<(start + JournalFrame.headerSize + length)
    }

    /// Zeros are no damage only at the very end of a file, where a journal
    /// reserves room; a whole record zeroed between others (a sector lost)
    /// is an order lost, and must be reported, not skipped in silence.
    func testAWholeRecordZeroedBetweenOthersIsReportedAsDamage() async throws {
        let (directory, file) = try await journalOfThreeOrders()
        var bytes = try Data(contentsOf: file)
        let second = try recordRange(of: "o-2", in: bytes)
        bytes.replaceSubrange(second, with: Data(count: second.count))
        try bytes.write(to: file)

        let reopened = try makeJournalStore(directory)
        let report = try await reopened.loadOpenOrders()
        XCTAssertEqual(report.orders.map(\.id), ["o-1", "o-3"])
        XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt])
        XCTAssertTrue(report.problems.first?.message.contains("\(second.count) bytes from byte \(second.lowerBound)") == true,
                      "\(report.problems)")
        await reopened.close()
        let again = try await makeJournalStore(directory).loadOpenOrders()
        XCTAssertEqual(again.orders.map(\.id), ["o-1", "o-3"])
        XCTAssertTrue(again.problems.isEmpty, "\(again.problems)")
    }

    /// A snapshot's end record counts its orders: a whole order record taken
    /// out of the middle leaves no torn bytes, and only that count tells.
    func testASnapshotMissingAWholeRecordInTheMiddleIsReportedAsIncomplete() async throws {
        let directory = try makeTemporaryDirectory(self)
        let (orders, file) = try await snapshotStore(directory)
        var bytes = try Data(contentsOf: file)
        let held = orders.filter { bytes.firstRange(of: Data($0.id.utf8)) != nil }.count
        XCTAssertGreaterThanOrEqual(held, 3)
        bytes.removeSubrange(try recordRange(of: "o-2", in: bytes))
        try bytes.write(to: file)

        let store = try makeJournalStore(directory)
        let report = try await store.loadOpenOrders()
        XCTAssertEqual(report.orders, orders.filter { $0.id != "o-2" })
        XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt])
        XCTAssertTrue(report.problems.first?.message.contains("holds \(held - 1) orders of the \(held) ") == true,
                      "\(report.problems)")
        await store.close()
        // The fresh snapshot written after the report is whole: the next launch is clean.
        let again = try await makeJournalStore(directory).loadOpenOrders()
        XCTAssertEqual(again.orders, report.orders)
        XCTAssertTrue(again.problems.isEmpty, "\(again.problems)")
    }
}
