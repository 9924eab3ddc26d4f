import Foundation
import XCTest
@_spi(Testing) @testable import PurchaseKit
import PurchaseKitSimulator
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The engine on a `JournalOrderStore` whose import of a `FileOrderStore`
/// folder could not read one order file, while the store replays that
/// order's paid, unfinished transaction: it may be credited only to the
/// order's own user, and only once, when a later launch reads the file.
final class JournalImportUnreadOrderTests: XCTestCase {
    /// A world whose first app version (on a `FileOrderStore`) left alice's
    /// coins paid but not delivered (the server was down): its transaction is
    /// unfinished at the store. Returns the world, the directory and alice's order.
    private func owedDeliveryOfTheFileStore(losingTheToken: Bool) async throws -> (World, URL, Order) {
        let world = World()
        let directory = try makeTemporaryDirectory(self)
        if losingTheToken { await world.store.setLosesOrderToken(true) }
        let first = try await world.engine(world.configuration(store: try world.fileStore(directory)))
        await world.server.setFaultRates(ServerFaultRates(serverError: 1))
        let order = try await first.purchase(productID: Catalog.coins, user: "alice").order
        XCTAssertEqual(order.status, .purchased, "owed a delivery")
        await first.shutdown()
        await world.server.setFaultRates(.none)
        await world.store.setLosesOrderToken(false)
        return (world, directory, order)
    }

    /// An app's launch with bob logged in, on a journal store over `fileSystem`; an
    /// app that follows the hint of an unassigned order gives it to alice, who paid.
    /// Order ids are unique across launches, as an app's are.
    private func launch(_ world: World, _ directory: URL, fileSystem: any FileSystem) async throws -> (PurchaseEngine, JournalOrderStore) {
        let store = try makeJournalStore(directory, fileSystem: fileSystem, clock: world.clock)
        let engine = try PurchaseEngine(configuration: world.configuration(store: store, generator: UUIDOrderGenerator()))
        await engine.setCurrentUser("bob")
        try await engine.start()
        await engine.waitUntilIdle()
        for order in await engine.openOrders() where order.userID.isEmpty {
            _ = try await engine.assign(orderID: order.id, toUser: "alice")
        }
        await engine.waitUntilIdle()
        return (engine, store)
    }

    private func assertCreditedOnceToAlice(_ losingTheToken: Bool, file: StaticString = #filePath, line: UInt = #line) async throws {
        let (world, directory, order) = try await owedDeliveryOfTheFileStore(losingTheToken: losingTheToken)
        let transactionID = try XCTUnwrap(order.transactionID)
        let disk = FaultyFileSystem()
        disk.fail(.read, errno: EIO, pathContains: "/orders/" + FileNameCoding.fileName(for: order.id))
        let (engine, store) = try await launch(world, directory, fileSystem: disk)
        let credits = await world.server.credits(forTransactionID: transactionID)
        XCTAssertTrue(credits.allSatisfy { $0.userID == "alice" }, "credited to \(credits.map(\.userID))", file: file, line: line)
        // Whose it is cannot be told yet: it waits with the store, and nothing is made of it.
        XCTAssertEqual(credits.map(\.userID), [], file: file, line: line)
        let waiting = await world.store.unfinishedTransactions()
        XCTAssertEqual(waiting.map(\.id), [transactionID], file: file, line: line)
        let made = await engine.openOrders()
        XCTAssertEqual(made.map(\.id), [], file: file, line: line)
        // Purchases go on meanwhile.
        let bobs = try await engine.purchase(productID: Catalog.coins, user: "bob").order
        XCTAssertEqual(bobs.status, .completed, file: file, line: line)
        await engine.shutdown()
        await store.close()

        // The file reads again: the next launch imports alice's order.
        let (relaunched, reopened) = try await launch(world, directory, fileSystem: POSIXFileSystem())
        let after = await world.server.credits(forTransactionID: transactionID)
        XCTAssertEqual(after.map(\.userID), ["alice"], file: file, line: line)
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished.map(\.id), [], "finished once delivered", file: file, line: line)
        let alice = try await relaunched.consumableBalance(user: "alice")
        XCTAssertEqual(alice, [Catalog.coins: 1], "one purchase, one pack", file: file, line: line)
        let bob = try await relaunched.consumableBalance(user: "bob")
        XCTAssertEqual(bob, [Catalog.coins: 1], "his own purchase only", file: file, line: line)
        let holding = try await reopened.orders(forUser: "alice").filter { $0.transactionID == transactionID }
        XCTAssertEqual(holding.map(\.id), [order.id], "one order holds the transaction", file: file, line: line)
        await relaunched.shutdown()
        await reopened.close()
    }

    /// A restore while the import has left an archived order unread: the
    /// restored purchase may be that order's, so it is reported as waiting
    /// for a read (not as a failed save), credited to nobody new, and
    /// restored to its own order once the file reads again.
    func testARestoreOfAnOrderTheImportCouldNotReadWaitsForItAndSaysWhy() async throws {
        let world = World()
        let directory = try makeTemporaryDirectory(self)
        let first = try await world.engine(world.configuration(store: try world.fileStore(directory)))
        let bought = try await first.purchase(productID: Catalog.pro, user: "alice").order
        XCTAssertEqual(bought.status, .completed)
        await first.shutdown()
        let transactionID = try XCTUnwrap(bought.transactionID)

        let disk = FaultyFileSystem()
        disk.fail(.read, errno: EIO, pathContains: "/archive/" + FileNameCoding.fileName(for: bought.id))
        let (engine, store) = try await launch(world, directory, fileSystem: disk)
        let waiting = try await engine.restorePurchases(user: "alice")
        XCTAssertEqual(waiting.failures.map(\.transactionID), [transactionID])
        XCTAssertEqual(waiting.failures.map(\.error.code), [.persistenceReadFailed], "a read, not a save, is what failed")
        XCTAssertEqual(waiting.delivered.map(\.id), [])
        let made = try await store.orders(forUser: "alice")
        XCTAssertEqual(made.map(\.id), [], "no order is made while the one that may hold it is unread")
        await engine.shutdown()
        await store.close()

        let (relaunched, reopened) = try await launch(world, directory, fileSystem: POSIXFileSystem())
        let restored = try await relaunched.restorePurchases(user: "alice")
        XCTAssertEqual(restored.failures.map(\.transactionID), [])
        XCTAssertEqual(restored.delivered.map(\.id), [bought.id], "restored to the order that paid for it")
        let credits = await world.server.credits(forTransactionID: transactionID)
        XCTAssertEqual(Set(credits.map(\.userID)), ["alice"])
        await relaunched.shutdown()
        await reopened.close()
    }

    func testAnOrderTheImportCouldNotReadIsCreditedOnceToItsUser() async throws {
        try await assertCreditedOnceToAlice(false)
    }

    func testAnOrderTheImportCouldNotReadIsNotCreditedToWhoeverIsLoggedInWhenTheStoreLostItsToken() async throws {
        try await assertCreditedOnceToAlice(true)
    }
}
