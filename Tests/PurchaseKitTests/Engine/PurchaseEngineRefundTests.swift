import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

private extension PurchaseEvent {
    var order: Order? {
        if case .revoked(let order) = self { return order }
        return nil
    }
}

/// Refund requests through the engine: submitted to the store, accepted or
/// declined later on the store's clock.
final class PurchaseEngineRefundTests: XCTestCase {
    private func bought(_ world: World) async throws -> (PurchaseEngine, Order) {
        let engine = try await world.engine()
        let result = try await engine.purchase(productID: Catalog.pro, user: "alice")
        guard case .success(let order) = result else { throw XCTSkip("purchase did not succeed: \(result)") }
        return (engine, order)
    }

    func testAnAcceptedRefundRevokesTheOrderWhenTheStoreDecides() async throws {
        let world = World()
        let (engine, order) = try await bought(world)
        let events = await EventLog(engine)
        await world.store.setRefundRequestBehavior(.approve(afterDays: 2))
        let status = try await engine.requestRefund(orderID: order.id, user: "alice")
        XCTAssertEqual(status, .submitted)

        world.clock.advance(by: 86_400)
        await world.store.processRefundRequests()
        await engine.waitUntilIdle()
        var entitled = try await engine.entitlements(user: "alice").map(\.productID)
        XCTAssertEqual(entitled, [Catalog.pro], "nothing changes before the store decides")

        world.clock.advance(by: 86_401)
        await world.store.processRefundRequests()
        await engine.waitUntilIdle()
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .revoked)
        entitled = try await engine.entitlements(user: "alice").map(\.productID)
        XCTAssertTrue(entitled.isEmpty)
        // The revocation is broadcast: the order's move, `.revoked`, and the
        // changed entitlements. The engine is idle: a revocation it saved sent
        // `.revoked` with the save, and the event is on its way to the log.
        // With none saved, no event is coming, and waiting would never end.
        if stored?.status == .revoked {
            await events.waitForEvent { if case .revoked = $0 { return true } else { return false } }
        }
        await engine.waitUntilIdle()
        let revokedEvents = await events.events.filter { if case .revoked = $0 { return true } else { return false } }
        XCTAssertEqual(revokedEvents.map(\.order?.id), [order.id])
        await events.stop()

        await assertThrows(.refundRequestDuplicate) { _ = try await engine.requestRefund(orderID: order.id, user: "alice") }
    }

    func testADeclinedRefundChangesNothing() async throws {
        let world = World()
        let (engine, order) = try await bought(world)
        await world.store.setRefundRequestBehavior(.decline(afterDays: 1))
        let transactionID = try XCTUnwrap(order.transaction?.id)
        let status = try await engine.requestRefund(transactionID: transactionID, user: "alice")
        XCTAssertEqual(status, .submitted)
        world.clock.advance(by: 3 * 86_400)
        await world.store.processRefundRequests()
        await engine.waitUntilIdle()
        let decision = await world.store.refundRequestDecision(transactionID: transactionID)
        XCTAssertEqual(decision, .declined)
        let stored = await world.orders.order(id: order.id)
        XCTAssertNotEqual(stored?.status, .revoked)
        let entitled = try await engine.entitlements(user: "alice").map(\.productID)
        XCTAssertEqual(entitled, [Catalog.pro])
    }

    func testRefundRequestFailures() async throws {
        let world = World()
        let (engine, order) = try await bought(world)
        await assertThrows(.orderNotFound) { _ = try await engine.requestRefund(orderID: order.id, user: "mallory") }
        await assertThrows(.orderNotFound) { _ = try await engine.requestRefund(orderID: "no-such-order", user: "alice") }
        await assertThrows(.orderNotFound) { _ = try await engine.requestRefund(transactionID: "123", user: "alice") }

        await world.store.setRefundRequestBehavior(.userCancels)
        let cancelled = try await engine.requestRefund(orderID: order.id, user: "alice")
        XCTAssertEqual(cancelled, .userCancelled)

        await world.store.setRefundRequestBehavior(.fails)
        let failed = await assertThrows(.refundRequestFailed) { _ = try await engine.requestRefund(orderID: order.id, user: "alice") }
        XCTAssertEqual(failed?.orderID, order.id)

        await world.store.setRefundRequestBehavior(.approve(afterDays: 2))
        _ = try await engine.requestRefund(orderID: order.id, user: "alice")
        await assertThrows(.refundRequestDuplicate) { _ = try await engine.requestRefund(orderID: order.id, user: "alice") }

        // A store without refund requests answers with the protocol's default.
        let unsupported = try await world.engine(world.configuration(queue: ForwardingQueue(world.store)))
        await assertThrows(.refundUnsupported) { _ = try await unsupported.requestRefund(orderID: order.id, user: "alice") }
    }
}
