import Foundation
import XCTest
@_spi(Testing) @testable import PurchaseKit
import PurchaseKitSimulator

/// Spends kept by the durable stores: across a relaunch, through journal
/// snapshots, through the import of a FileOrderStore, and refused rather than
/// forgotten when their file is damaged.
final class SpendPersistenceTests: XCTestCase {
    private func spend(_ id: String, user: String = "alice", amount: Int = 1, balanceAfter: Int = 0, at seconds: TimeInterval = 0) -> ConsumableSpend {
        ConsumableSpend(id: id, userID: user, balanceKey: Catalog.coins, amount: amount,
                        date: testEpoch.addingTimeInterval(seconds), balanceAfter: balanceAfter)
    }

    /// Buys `units` coins for alice on an engine over `store`, spends 2 of them, and returns the spend.
    private func buyAndSpend(_ world: World, store: any OrderStore, units: Int = 5) async throws -> ConsumableSpend {
        let engine = try await world.engine(world.configuration(store: store))
        _ = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: units)
        await engine.waitUntilIdle()
        return try await engine.spend(2, of: Catalog.coins, user: "alice", spendID: "first")
    }

    /// A relaunched engine over `store` sees the spend and answers its retry with it.
    private func assertRelaunchKeeps(_ spent: ConsumableSpend, _ world: World, store: any OrderStore,
                                     file: StaticString = #filePath, line: UInt = #line) async throws {
        let engine = try await world.engine(world.configuration(store: store))
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 3, file: file, line: line)
        let retry = try await engine.spend(2, of: Catalog.coins, user: "alice", spendID: "first")
        XCTAssertEqual(retry, spent, file: file, line: line)
        let info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.consumableBalances[Catalog.coins], 3, file: file, line: line)
    }

    func testSpendsSurviveARelaunchOnTheJournalStore() async throws {
        let world = World()
        let directory = try makeTemporaryDirectory(self)
        let first = try JournalOrderStore(directory: directory, configuration: .init(clock: world.clock))
        let spent = try await buyAndSpend(world, store: first)
        await first.close()
        try await assertRelaunchKeeps(spent, world, store: JournalOrderStore(directory: directory, configuration: .init(clock: world.clock)))
    }

    func testSpendsSurviveARelaunchOnTheFileStore() async throws {
        let world = World()
        let directory = try makeTemporaryDirectory(self)
        let spent = try await buyAndSpend(world, store: FileOrderStore(directory: directory, configuration: .init(clock: world.clock)))
        try await assertRelaunchKeeps(spent, world, store: FileOrderStore(directory: directory, configuration: .init(clock: world.clock)))
    }

    func testJournalSnapshotsKeepEverySpend() async throws {
        let world = World()
        let directory = try makeTemporaryDirectory(self)
        // A tiny threshold: nearly every record starts a new snapshot and retires the journal before it.
        let configuration = JournalOrderStore.Configuration(clock: world.clock, snapshotThreshold: 64)
        let store = try JournalOrderStore(directory: directory, configuration: configuration)
        for index in 0..<50 {
            _ = try await store.recordSpend(spend("s\(index)", user: index.isMultiple(of: 2) ? "alice" : "bob", at: Double(index)))
            try await store.save(makeOrder("order-\(index)", user: "alice", transactionID: "t\(index)", status: .delivered))
        }
        _ = try await store.compactArchive()
        await store.close()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/journal")
        XCTAssertTrue(files.contains { $0.hasPrefix("snapshot") }, "a snapshot was written: \(files)")
        let reopened = try JournalOrderStore(directory: directory, configuration: configuration)
        let alice = try await reopened.spends(forUser: "alice")
        let bob = try await reopened.spends(forUser: "bob")
        XCTAssertEqual(alice.map(\.id), stride(from: 0, to: 50, by: 2).map { "s\($0)" })
        XCTAssertEqual(bob.map(\.id), stride(from: 1, to: 50, by: 2).map { "s\($0)" })
        let value1 = try await reopened.orders(forUser: "alice").count
        XCTAssertEqual(value1, 50)
        await reopened.close()
    }

    func testARepeatedSpendIDKeepsTheFirstRecordInEveryStore() async throws {
        let directory = try makeTemporaryDirectory(self)
        let stores: [any OrderStore] = [
            InMemoryOrderStore(),
            try FileOrderStore(directory: directory.appendingPathComponent("file")),
            try JournalOrderStore(directory: directory.appendingPathComponent("journal")),
        ]
        for store in stores {
            let first = try await store.recordSpend(spend("same", amount: 2, balanceAfter: 3))
            let second = try await store.recordSpend(spend("same", amount: 4, balanceAfter: 1, at: 9))
            XCTAssertEqual(second, first, "\(type(of: store))")
            let kept = try await store.spends(forUser: "alice")
            XCTAssertEqual(kept, [first], "\(type(of: store))")
            let others = try await store.spends(forUser: "bob")
            XCTAssertEqual(others, [], "\(type(of: store))")
        }
        await (stores[2] as? JournalOrderStore)?.close()
    }

    func testAJournalWrittenWithoutSpendsOpensAndThenKeepsThem() async throws {
        let directory = try makeTemporaryDirectory(self)
        let old = try JournalOrderStore(directory: directory)
        try await old.save(makeOrder("order-1", transactionID: "t1", status: .delivered))
        await old.close()
        let reopened = try JournalOrderStore(directory: directory)
        let value2 = try await reopened.spends(forUser: "user-1")
        XCTAssertEqual(value2, [])
        let value3 = try await reopened.order(id: "order-1")?.status
        XCTAssertEqual(value3, .delivered)
        _ = try await reopened.recordSpend(spend("s", user: "user-1"))
        await reopened.close()
        let again = try JournalOrderStore(directory: directory)
        let value4 = try await again.spends(forUser: "user-1").map(\.id)
        XCTAssertEqual(value4, ["s"])
        await again.close()
    }

    func testTheJournalRefusesASpendItCouldNotReadBack() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try JournalOrderStore(directory: directory)
        for (amount, balanceAfter) in [(0, 5), (-2, 5), (2, -1)] {
            let invalid = spend("s\(amount)\(balanceAfter)", user: "user-1", amount: amount, balanceAfter: balanceAfter)
            let error = await assertThrows(.invalidQuantity) { _ = try await store.recordSpend(invalid) }
            XCTAssertTrue(error?.message.contains("Nothing was written") == true, "\(String(describing: error))")
        }
        _ = try await store.recordSpend(spend("valid", user: "user-1"))
        await store.close()
        let reopened = try JournalOrderStore(directory: directory)
        let report = try await reopened.loadOpenOrders()
        XCTAssertTrue(report.problems.isEmpty, "nothing unreadable was written: \(report.problems)")
        let kept = try await reopened.spends(forUser: "user-1").map(\.id)
        XCTAssertEqual(kept, ["valid"])
        await reopened.close()
    }

    func testTheJournalImportsTheSpendsOfAFileOrderStore() async throws {
        let directory = try makeTemporaryDirectory(self)
        let legacy = try FileOrderStore(directory: directory)
        try await legacy.save(makeOrder("order-1", user: "alice", transactionID: "t1", status: .delivered))
        _ = try await legacy.recordSpend(spend("a1"))
        _ = try await legacy.recordSpend(spend("b1", user: "bob"))
        let journal = try JournalOrderStore(directory: directory)
        let value5 = try await journal.spends(forUser: "alice").map(\.id)
        XCTAssertEqual(value5, ["a1"])
        let value6 = try await journal.spends(forUser: "bob").map(\.id)
        XCTAssertEqual(value6, ["b1"])
        let value7 = try await journal.order(id: "order-1")
        XCTAssertNotNil(value7)
        await journal.waitUntilWritten()
        await journal.close()
        let left = (try? FileManager.default.contentsOfDirectory(atPath: directory.path + "/spends")) ?? []
        XCTAssertEqual(left.filter { !$0.hasPrefix(".") }, [], "the imported spends files are deleted once a snapshot holds them")
        let reopened = try JournalOrderStore(directory: directory)
        let value8 = try await reopened.spends(forUser: "alice").map(\.id)
        XCTAssertEqual(value8, ["a1"], "kept by the snapshot, not by the deleted files")
        await reopened.close()
    }

    func testADamagedSpendsFileIsReportedNotForgotten() async throws {
        let world = World()
        let directory = try makeTemporaryDirectory(self)
        let store = try FileOrderStore(directory: directory, configuration: .init(clock: world.clock))
        _ = try await buyAndSpend(world, store: store)
        let folder = directory.path + "/spends"
        let name = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: folder).first)
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
        let relaunched = try await world.engine(world.configuration(store: FileOrderStore(directory: directory, configuration: .init(clock: world.clock))))
        do {
            _ = try await relaunched.consumableBalance(user: "alice")
            XCTFail("a balance was answered without its spends")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .persistenceCorrupt)
        }
        do {
            try await relaunched.spend(1, of: Catalog.coins, user: "alice", spendID: "second")
            XCTFail("a spend went ahead without the earlier spends")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .persistenceCorrupt)
        }
        let kept = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        XCTAssertEqual(String(decoding: kept, as: UTF8.self), "{ not json", "nothing was written over the damaged file")
    }

    func testEveryStoreKeepsTheSpendsOfHostileAndLongUserIDsApartAcrossAReopen() async throws {
        let users = ["", "a/b", "../..", "ünïcode", String(repeating: "x", count: 400), String(repeating: "x", count: 401), "nul\u{0}id"]
        let file = try makeTemporaryDirectory(self)
        let journal = try makeTemporaryDirectory(self)
        let snapshotting = try makeTemporaryDirectory(self)
        let reopen: [(String, () throws -> any OrderStore)] = [
            ("FileOrderStore", { try makeStore(file) }),
            ("JournalOrderStore", { try makeJournalStore(journal) }),
            ("JournalOrderStore, snapshotting", { try makeJournalStore(snapshotting, snapshotThreshold: 1) }),
        ]
        for (name, open) in reopen {
            let store = try open()
            for (index, user) in users.enumerated() {
                _ = try await store.recordSpend(spend("first", user: user, amount: index + 1))
                _ = try await store.recordSpend(spend("second", user: user, amount: 1, at: 1))
            }
            await (store as? JournalOrderStore)?.close()
            let reopened = try open()
            for (index, user) in users.enumerated() {
                let kept = try await reopened.spends(forUser: user)
                XCTAssertEqual(kept.map(\.id), ["first", "second"], "\(name), user #\(index)")
                XCTAssertEqual(kept.first?.amount, index + 1, "\(name), user #\(index): another user's spend")
                XCTAssertTrue(kept.allSatisfy { $0.userID == user }, "\(name), user #\(index)")
            }
            await (reopened as? JournalOrderStore)?.close()
        }
    }

    func testADamagedSpendRecordInTheJournalIsReportedAndTheOthersKept() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try JournalOrderStore(directory: directory)
        for id in ["spend-a", "spend-b", "spend-c"] { _ = try await store.recordSpend(spend(id)) }
        await store.close()
        let folder = directory.path + "/journal"
        let name = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("log-") })
        let url = URL(fileURLWithPath: folder + "/" + name)
        var bytes = try Data(contentsOf: url)
        let range = try XCTUnwrap(bytes.range(of: Data("spend-b".utf8)))
        bytes[range.lowerBound] ^= 0xFF
        try bytes.write(to: url)

        let reopened = try JournalOrderStore(directory: directory)
        let kept = try await reopened.spends(forUser: "alice")
        XCTAssertEqual(kept.map(\.id), ["spend-a", "spend-c"])
        let report = try await reopened.loadOpenOrders()
        XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt], "the damaged record is reported")
        await reopened.close()
    }
}
