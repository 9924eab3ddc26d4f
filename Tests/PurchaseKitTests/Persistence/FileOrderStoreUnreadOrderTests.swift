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

/// The engine on a `FileOrderStore` whose launch could not read one order
/// file (an I/O error; the file is left for the next launch) while the store
/// replays that order's paid, unfinished transaction: it may go to nobody
/// else, and is credited once, to its own user, when a launch reads the file.
final class FileOrderStoreUnreadOrderTests: XCTestCase {
    private func launch(_ world: World, _ directory: URL, fileSystem: any FileSystem) async throws -> PurchaseEngine {
        var configuration = FileOrderStore.Configuration(clock: world.clock)
        configuration.fileSystem = fileSystem
        let store = try FileOrderStore(directory: directory, configuration: configuration)
        let engine = try PurchaseEngine(configuration: world.configuration(store: store, generator: UUIDOrderGenerator()))
        await engine.setCurrentUser("bob")
        try await engine.start()
        await engine.waitUntilIdle()
        return engine
    }

    func testAPaidOrderWhoseFileCouldNotBeReadIsCreditedToNobodyElseThenOnceToItsUser() async throws {
        let world = World()
        let directory = try makeTemporaryDirectory(self)
        // Alice pays; the server is down, so the order rests `purchased`, its transaction unfinished.
        let first = try await world.engine(world.configuration(store: try world.fileStore(directory)))
        await world.server.setFaultRates(ServerFaultRates(serverError: 1))
        let order = try await first.purchase(productID: Catalog.coins, user: "alice").order
        XCTAssertEqual(order.status, .purchased)
        await first.shutdown()
        await world.server.setFaultRates(.none)
        let transactionID = try XCTUnwrap(order.transactionID)

        let disk = FaultyFileSystem()
        disk.fail(.read, errno: EIO, pathContains: "/orders/" + FileNameCoding.fileName(for: order.id))
        let unreadable = try await launch(world, directory, fileSystem: disk)
        let meanwhile = await world.server.credits(forTransactionID: transactionID)
        XCTAssertEqual(meanwhile.map(\.userID), [], "not credited to bob, who is logged in, nor to anyone")
        let waiting = await world.store.unfinishedTransactions()
        XCTAssertEqual(waiting.map(\.id), [transactionID], "left with the store")
        let made = await unreadable.openOrders()
        XCTAssertEqual(made.map(\.id), [], "no order is made for it")
        await unreadable.shutdown()

        let relaunched = try await launch(world, directory, fileSystem: POSIXFileSystem())
        let credits = await world.server.credits(forTransactionID: transactionID)
        XCTAssertEqual(credits.map(\.userID), ["alice"])
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished.map(\.id), [])
        let alice = try await relaunched.consumableBalance(user: "alice")
        XCTAssertEqual(alice, [Catalog.coins: 1], "one payment, one pack")
        let bob = try await relaunched.consumableBalance(user: "bob")
        XCTAssertEqual(bob, [:])
        await relaunched.shutdown()
    }
}
