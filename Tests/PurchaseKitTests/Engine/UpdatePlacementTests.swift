import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// How store updates are matched to orders and placed, and what the engine's
/// recovery passes do with orders already settled: the corners no other
/// suite reaches.
final class UpdatePlacementTests: XCTestCase {
    /// Alice buys pro and the store refunds it.
    private func refundedPurchase(_ world: World) async throws -> (PurchaseEngine, Order) {
        let engine = try await world.engine()
        let result = try await engine.purchase(productID: Catalog.pro, user: "alice")
        guard case .success(let order) = result else { return try XCTUnwrap(nil, "the purchase did not succeed: \(result)") }
        try await world.store.refund(transactionID: try XCTUnwrap(order.transactionID))
        await engine.waitUntilIdle()
        return (engine, order)
    }

    /// A revocation the engine recorded already is not taken in again when
    /// the store's revocations are read at a retry trigger: the revoked order
    /// stays in the archive, and no settled order comes back among the open
    /// ones (where an app would show it as waiting) each time the network
    /// returns.
    func testARecordedRevocationLeavesTheRevokedOrderInTheArchiveAtEveryRetry() async throws {
        let world = World()
        let (engine, order) = try await refundedPurchase(world)
        let revoked = await world.orders.order(id: order.id)
        XCTAssertEqual(revoked?.status, .revoked)
        var open = await engine.openOrders()
        XCTAssertEqual(open, [], "a revoked order rests in the archive")

        await engine.retryPendingDeliveries()
        await engine.retryPendingDeliveries(user: "alice")
        await engine.waitUntilIdle()

        open = await engine.openOrders()
        XCTAssertEqual(open, [], "the revocation was not taken in again")
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .revoked)
        let entitled = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitled, [])
    }

    /// A payment from another device whose order could not be saved (a full
    /// disk) is refunded before the store replays it: its revocation matches
    /// no order, and is finished. Nothing is owed for it any more, and a
    /// transaction left unfinished would come back as a revocation at every
    /// launch and retry trigger.
    func testARevocationOfAPaymentNoOrderHoldsIsFinished() async throws {
        let world = World()
        let orders = failingSaves(world.orders, statuses: [.purchased])
        let engine = try await world.engine(world.configuration(store: orders))
        await engine.setCurrentUser("bob")
        try await SimulatedDevice(world: world).buy(Catalog.pro)
        await engine.waitUntilIdle()
        let unplaced = await world.store.unfinishedTransactions()
        XCTAssertEqual(unplaced.count, 1, "the payment waits with the store")
        var open = await engine.openOrders()
        XCTAssertEqual(open, [])

        try await world.store.refund(transactionID: try XCTUnwrap(unplaced.first?.id))
        await engine.waitUntilIdle()

        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished, [], "the refunded payment is finished")
        open = await engine.openOrders()
        XCTAssertEqual(open, [])
        let credits = await world.server.allCredits
        XCTAssertEqual(credits, [], "nothing is credited for a refunded payment")
    }

    /// The engine shuts down while it looks for the order of a payment from
    /// another device: the new order it would make is not saved. The next
    /// engine on the same order store owns the payment now, and the store
    /// replays it to that engine, which delivers it once.
    func testAPaymentBeingMatchedWhenTheEngineShutsDownIsLeftForTheNextEngine() async throws {
        let world = World()
        let gate = Gate()
        let holding = Locked(false)
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            // The lookup of the purchase's orders, made for every paid transaction.
            guard case .ordersOfPurchase = call, holding.withLock({ $0 }) else { return .proceed }
            return .proceedThen { _ in await gate.pass() }
        }
        let engine = try await world.engine(world.configuration(store: orders))
        await engine.setCurrentUser("bob")
        holding.withLock { $0 = true }
        orders.clearCalls()
        let buying = Task { try await SimulatedDevice(world: world).buy(Catalog.pro) }
        await orders.waitForCalls(.ordersOfPurchase)
        await engine.shutdown()
        gate.open()
        try await buying.value
        await engine.waitUntilIdle()

        let saved = await world.orders.allOrders()
        XCTAssertEqual(saved, [], "a shut-down engine saves nothing")
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished.count, 1, "the payment waits with the store")

        holding.withLock { $0 = false }
        let next = try PurchaseEngine(configuration: world.configuration(store: orders))
        await next.setCurrentUser("bob")
        try await next.start()
        await next.waitUntilIdle()
        let credits = await world.server.credits(forUser: "bob")
        XCTAssertEqual(credits.count, 1, "delivered once, by the next engine")
        let left = await world.store.unfinishedTransactions()
        XCTAssertEqual(left, [])
    }
}

