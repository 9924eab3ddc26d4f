import XCTest
@_spi(Testing) @testable import PurchaseKit
import PurchaseKitSimulator

/// An order that comes to rest is saved straight into the archive when the
/// store can do it as one change (``ArchivingOrderStore``), and saved, then
/// archived, when it cannot.
final class ArchivingSaveTests: XCTestCase {
    /// An archiving store over an in-memory one that counts its calls and can
    /// fail its first saves into the archive (a full disk).
    private final class CountingArchivingStore: ArchivingOrderStore, @unchecked Sendable {
        struct DiskFull: Error {}
        let inner: InMemoryOrderStore
        private let counts = Locked((saves: 0, archivedSaves: 0, archives: 0, failuresLeft: 0))

        init(_ inner: InMemoryOrderStore, failingArchivedSaves: Int = 0) {
            self.inner = inner
            counts.withLock { $0.failuresLeft = failingArchivedSaves }
        }

        var saves: Int { counts.withLock { $0.saves } }
        var archivedSaves: Int { counts.withLock { $0.archivedSaves } }
        var archives: Int { counts.withLock { $0.archives } }

        func saveArchived(_ order: Order) async throws {
            let fails = counts.withLock { c -> Bool in
                c.archivedSaves += 1
                guard c.failuresLeft > 0 else { return false }
                c.failuresLeft -= 1
                return true
            }
            if fails { throw DiskFull() }
            await inner.saveArchived(order)
        }

        func save(_ order: Order) async throws {
            counts.withLock { $0.saves += 1 }
            await inner.save(order)
        }

        func archive(orderID: String) async throws {
            counts.withLock { $0.archives += 1 }
            try await inner.archive(orderID: orderID)
        }

        func loadOpenOrders() async throws -> OrderLoadReport { await inner.loadOpenOrders() }
        func openOrders(forUser userID: String) async throws -> [Order] { await inner.openOrders(forUser: userID) }
        func orders(forUser userID: String) async throws -> [Order] { await inner.orders(forUser: userID) }
        func order(id: String) async throws -> Order? { await inner.order(id: id) }
        func order(transactionID: String) async throws -> Order? { await inner.order(transactionID: transactionID) }
        func orders(originalTransactionID: String) async throws -> [Order] { await inner.orders(originalTransactionID: originalTransactionID) }
        func order(token: String) async throws -> Order? { await inner.order(token: token) }
        func remove(orderID: String) async throws { await inner.remove(orderID: orderID) }
    }

    func testACompletedPurchaseIsSavedStraightIntoTheArchiveInOneCall() async throws {
        let world = World()
        let store = CountingArchivingStore(world.orders)
        let engine = try await world.engine(world.configuration(store: store))
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .success(let order) = result else { return XCTFail("\(result)") }
        await engine.waitUntilIdle()

        XCTAssertEqual(store.archivedSaves, 1)
        XCTAssertEqual(store.archives, 0, "the archive move was made again on its own")
        XCTAssertEqual(store.saves, 4, "created, purchasing, purchased and delivered: \(store.saves) saves")
        let open = await world.orders.loadOpenOrders().orders
        XCTAssertEqual(open.map(\.id), [])
        let archived = await world.orders.order(id: order.id)
        XCTAssertEqual(archived?.status, .completed)
        let byToken = await world.orders.order(token: try XCTUnwrap(order.token))
        XCTAssertEqual(byToken?.id, order.id)
    }

    /// As when a save of `completed` fails: the order stays `delivered`, and
    /// the next launch finishes it again (finishing twice does nothing) and archives it.
    func testASaveIntoTheArchiveThatFailsLeavesTheOrderOpenAndTheNextLaunchArchivesIt() async throws {
        let world = World()
        let store = CountingArchivingStore(world.orders, failingArchivedSaves: 1)
        let engine = try await world.engine(world.configuration(store: store))
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .success(let order) = result else { return XCTFail("the user was credited: \(result)") }

        // Nothing of the failed call was written: the delivered order stays open, in the store and the engine.
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .delivered)
        let open = await world.orders.loadOpenOrders().orders
        XCTAssertEqual(open.map(\.id), [order.id])

        await engine.shutdown()
        let relaunched = try await world.engine(world.configuration(store: store))
        XCTAssertEqual(store.archivedSaves, 2)
        let archived = await world.orders.order(id: order.id)
        XCTAssertEqual(archived?.status, .completed)
        let reopened = await world.orders.loadOpenOrders().orders
        XCTAssertEqual(reopened.map(\.id), [])
        let balance = try await relaunched.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 1])
        let credits = await world.creditCounts()
        XCTAssertEqual(Array(credits.values), [1], "credited twice")
    }

    func testAStoreThatCannotSavesThenArchives() async throws {
        let world = World()
        let calls = Locked<[String]>([])
        let store = InterceptingOrderStore(wrapping: world.orders) { call in
            switch call {
            case .save(let order): calls.withLock { $0.append("save \(order.status.rawValue)") }
            case .archive: calls.withLock { $0.append("archive") }
            default: break
            }
            return .proceed
        }
        let engine = try await world.engine(world.configuration(store: store))
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .success(let order) = result else { return XCTFail("\(result)") }
        await engine.waitUntilIdle()
        XCTAssertEqual(calls.withLock { $0 }.suffix(2), ["save completed", "archive"])
        let archived = await world.orders.order(id: order.id)
        XCTAssertEqual(archived?.status, .completed)
        let open = await world.orders.loadOpenOrders().orders
        XCTAssertEqual(open.map(\.id), [])
    }
}
