import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// A user's purchase history: open and archived orders, newest first, read
/// back after a relaunch from the durable journal store.
final class HistoryTests: XCTestCase {
    func testHistoryIsNewestFirstAndSurvivesARelaunch() async throws {
        let world = World()
        let directory = try makeTemporaryDirectory(self)
        var store = try JournalOrderStore(directory: directory, configuration: .init(clock: world.clock))
        var engine = try await world.engine(world.configuration(store: store))
        let pro = try await engine.purchase(productID: Catalog.pro, user: "alice").order
        world.clock.advance(by: 60)
        await world.store.scriptNextPurchase(.userCancel)
        let cancelled = try await engine.purchase(productID: Catalog.coins, user: "alice").order
        world.clock.advance(by: 60)
        let coins = try await engine.purchase(productID: Catalog.coins, user: "alice").order
        world.clock.advance(by: 60)
        _ = try await engine.purchase(productID: Catalog.season, user: "bob")
        world.clock.advance(by: 60)
        // The server is down: this one stays open, owed.
        await world.server.scriptNextReplies([.serverError(statusCode: 503)])
        let owed = try await engine.purchase(productID: Catalog.monthly, user: "alice").order
        XCTAssertEqual(owed.status, .purchased)

        let expected = [owed.id, coins.id, cancelled.id, pro.id]
        var history = try await engine.history(user: "alice")
        XCTAssertEqual(history.map(\.id), expected)
        XCTAssertEqual(history.map(\.status), [.purchased, .completed, .cancelled, .completed])
        var paid = try await engine.history(user: "alice", paidOnly: true)
        XCTAssertEqual(paid.map(\.id), [owed.id, coins.id, pro.id])

        // Relaunch on the same folder.
        await engine.waitUntilIdle()
        await store.close()
        store = try JournalOrderStore(directory: directory, configuration: .init(clock: world.clock))
        engine = try await world.engine(world.configuration(store: store))
        history = try await engine.history(user: "alice")
        XCTAssertEqual(history.map(\.id), expected)
        XCTAssertEqual(history.first?.status, .completed, "the owed delivery was retried at launch")
        XCTAssertEqual(history.map(\.transactionID), [owed.transactionID, coins.transactionID, nil, pro.transactionID])
        paid = try await engine.history(user: "alice", paidOnly: true)
        XCTAssertEqual(paid.map(\.productID), [Catalog.monthly, Catalog.coins, Catalog.pro])
        let bob = try await engine.history(user: "bob")
        XCTAssertEqual(bob.map(\.productID), [Catalog.season])
        let nobody = try await engine.history(user: "zoe")
        XCTAssertTrue(nobody.isEmpty)
        await store.close()
    }

    func testAHistoryTheStoreCannotReadThrows() async throws {
        let world = World()
        let engine = try await world.engine(world.configuration(store: unreadableHistory(world.orders)))
        do {
            _ = try await engine.history(user: "alice")
            XCTFail("expected persistenceReadFailed")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .persistenceReadFailed)
        }
    }
}

/// An order store whose per-user reads fail (a damaged index).
private func unreadableHistory(_ base: InMemoryOrderStore) -> InterceptingOrderStore {
    struct Damaged: Error {}
    return InterceptingOrderStore(wrapping: base) { call in
        switch call.name {
        case .openOrders, .orders: return .fail(Damaged())
        default: return .proceed
        }
    }
}
