import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// The engine on the embedded default store, on disk: a relaunch is a new
/// `FileOrderStore` instance on the same directory, as after a real process exit.
final class PurchaseEngineFileStoreTests: XCTestCase {
    private let points: [KillSwitch.Point] =
        (1...5).flatMap { [KillSwitch.Point.beforeSave($0), .afterSave($0)] }
        + [.beforeVerify(1), .afterVerify(1), .beforeFinish(1), .afterFinish(1)]

    func testAKillAtEveryPointThenARelaunchFromDiskDeliversExactlyOnce() async throws {
        for point in points {
            let world = World()
            let directory = try makeTemporaryDirectory(self)
            let kill = KillSwitch(at: point)
            let firstStore = try world.fileStore(directory)
            let dying = try await world.engine(world.dyingConfiguration(kill, orders: firstStore))
            let call = Task { try? await dying.purchase(productID: Catalog.coins, user: "alice", metadata: ["campaign": "spring"]) }
            await kill.waitForDeath(of: dying, during: call)

            let relaunched = try await world.engine(world.configuration(store: try world.fileStore(directory)))
            let unfinished = await world.store.unfinishedTransactions()
            XCTAssertTrue(unfinished.isEmpty, "\(point)")
            let credits = await world.creditCounts()
            XCTAssertTrue(credits.values.allSatisfy { $0 == 1 }, "\(point): \(credits)")
            let balance = try await relaunched.consumableBalance(user: "alice")
            XCTAssertEqual(balance, credits.isEmpty ? [:] : [Catalog.coins: 1], "\(point)")
            let history = try await world.fileStore(directory).orders(forUser: "alice")
            // Killed before the first save: no order and nothing charged. Otherwise exactly one order.
            XCTAssertEqual(history.count, point == .beforeSave(1) ? 0 : 1, "\(point)")
            if let order = history.first {
                XCTAssertEqual(order.metadata, ["campaign": "spring"])
                // Not charged: failed (abandoned before the store saw it) or still waiting for the store.
                let expected: Set<OrderStatus> = credits.isEmpty ? [.failed, .purchasing] : [.completed]
                XCTAssertTrue(expected.contains(order.status), "\(point): \(order.status)")
            }
        }
    }

    func testADamagedOrderFileIsSetAsideAndTheRestLoad() async throws {
        let world = World()
        let directory = try makeTemporaryDirectory(self)
        let engine = try await world.engine(world.configuration(store: try world.fileStore(directory)))
        await world.server.setFaultRates(ServerFaultRates(serverError: 1))
        let owed = try await engine.purchase(productID: Catalog.coins, user: "alice").order
        // Some other file in the orders folder is damaged (a foreign tool, a bad sector).
        let ordersFolder = directory.appendingPathComponent("orders")
        try Data("{\"id\": \"half-writ".utf8).write(to: ordersFolder.appendingPathComponent("order-damaged.json"))

        await world.server.setFaultRates(.none)
        let relaunched = try PurchaseEngine(configuration: world.configuration(store: try world.fileStore(directory)))
        let report = try await relaunched.start()
        await relaunched.waitUntilIdle()
        XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt])
        XCTAssertEqual(report.orders.map(\.id), [owed.id])
        let delivered = try await world.fileStore(directory).order(id: owed.id)
        XCTAssertEqual(delivered?.status, .completed, "the owed delivery went through despite the damaged neighbour")
    }
}

extension World {
    /// A file store on `directory` that keeps time by this world's clock (its
    /// archive retention is measured on it).
    func fileStore(_ directory: URL) throws -> FileOrderStore {
        try FileOrderStore(directory: directory, configuration: FileOrderStore.Configuration(clock: clock))
    }
}
