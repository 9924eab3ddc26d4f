import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A `FileOrderStore` spends file the import could not read: its users are
/// refused, across a reload after a failed write, also with a hashed file
/// name; a spends folder that cannot be listed refuses everyone.
final class JournalUnreadSpendsTests: XCTestCase {
    private func setUp(user: String) async throws -> (URL, ConsumableSpend) {
        let directory = try makeTemporaryDirectory(self)
        let legacy = try makeStore(directory)
        try await legacy.save(makeOrder("o-1", status: .purchased))
        let spent = ConsumableSpend(id: "s-1", userID: user, balanceKey: "coins", amount: 5, date: testEpoch, balanceAfter: 0)
        _ = try await legacy.recordSpend(spent)
        return (directory, spent)
    }

    private func failAWrite(_ store: JournalOrderStore, _ disk: FaultyFileSystem) async throws {
        disk.fail(.write, errno: EIO, pathContains: "/journal/")
        disk.fail(.synchronize, errno: EIO, pathContains: "/journal/")
        disk.fail(.synchronizeData, errno: EIO, pathContains: "/journal/")
        await assertThrows(.persistenceWriteFailed) { try await store.save(makeOrder("o-2", status: .purchased)) }
    }

    /// A store whose import could not read user-1's spends file, which refuses
    /// them, then fails a write, so that its next call reloads; the disk is healed.
    private func refusedUntilAWriteFails(_ directory: URL) async throws -> (JournalOrderStore, FaultyFileSystem) {
        let disk = FaultyFileSystem()
        disk.fail(.read, errno: EIO, pathContains: "/spends/")
        let store = try makeJournalStore(directory, fileSystem: disk)
        _ = try await store.loadOpenOrders()
        await assertThrows(.persistenceCorrupt) { _ = try await store.spends(forUser: "user-1") }
        try await failAWrite(store, disk)
        disk.heal()
        return (store, disk)
    }

    func testStillRefusedAfterAReloadThatCannotReadTheFileEither() async throws {
        let (directory, _) = try await setUp(user: "user-1")
        let (store, disk) = try await refusedUntilAWriteFails(directory)
        disk.fail(.read, errno: EIO, pathContains: "/spends/")
        // The next call reloads, and imports again.
        await assertThrows(.persistenceCorrupt) { _ = try await store.spends(forUser: "user-1") }
        let again = ConsumableSpend(id: "s-2", userID: "user-1", balanceKey: "coins", amount: 5, date: testEpoch, balanceAfter: 0)
        await assertThrows(.persistenceCorrupt) { _ = try await store.recordSpend(again) }
        await store.close()
    }

    func testAnsweredAfterAReloadThatReadsTheFile() async throws {
        let (directory, spent) = try await setUp(user: "user-1")
        let (store, _) = try await refusedUntilAWriteFails(directory)
        let spends = try await store.spends(forUser: "user-1")
        XCTAssertEqual(spends, [spent])
        await store.close()
    }

    func testALongUserIDWithAHashedFileNameIsRefused() async throws {
        let long = "user-" + String(repeating: "L", count: 300)
        let (directory, _) = try await setUp(user: long)
        XCTAssertTrue(names(in: directory, "spends").first?.hasPrefix("hash-") == true, "\(names(in: directory, "spends"))")
        let disk = FaultyFileSystem()
        disk.fail(.read, errno: EIO, pathContains: "/spends/")
        let store = try makeJournalStore(directory, fileSystem: disk)
        _ = try await store.loadOpenOrders()
        disk.heal()
        await assertThrows(.persistenceCorrupt) { _ = try await store.spends(forUser: long) }
        let others = try await store.spends(forUser: "user-2")
        XCTAssertEqual(others, [])
        await store.close()
    }

    func testAnUnlistableSpendsFolderRefusesEveryone() async throws {
        let (directory, _) = try await setUp(user: "user-1")
        let disk = FaultyFileSystem()
        disk.fail(.list, errno: EIO, pathContains: "/spends")
        let store = try makeJournalStore(directory, fileSystem: disk)
        _ = try await store.loadOpenOrders()
        disk.heal()
        await assertThrows(.persistenceCorrupt) { _ = try await store.spends(forUser: "user-1") }
        await assertThrows(.persistenceCorrupt) { _ = try await store.spends(forUser: "user-2") }
        await store.close()
    }
}
