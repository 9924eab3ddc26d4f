import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// `assign(orderID:toUser:)`: an order nobody could be matched to safely goes
/// to one user, once, and the engine's record names the user the server credited.
final class AssignmentTests: XCTestCase {
    /// Two assigns of one unassigned order to two users, the first one's save
    /// still in flight when the second arrives (a double tap, a support tool
    /// and the app at once). Both once passed the "unassigned" check; the
    /// second's copy then replaced the first's order mid-delivery: the server
    /// credited dave, the engine recorded erin, and both calls succeeded.
    func testConcurrentAssignsGiveTheOrderToOneUser() async throws {
        let world = World()
        let gate = Gate()
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            // Holds the saves that give the order a user.
            if case .save(let order) = call, order.status == .needsAttention, !order.userID.isEmpty { await gate.pass() }
            return .proceed
        }
        let engine = try await world.engine(world.configuration(store: orders))
        await engine.setCurrentUser("carol")
        // A token no order holds: it waits for the app to assign it.
        try await world.store.add(Payment(productID: Catalog.pro, orderToken: "9f0c7d4e-0000-4000-8000-000000000001", userID: "dave"))
        await engine.waitUntilIdle()
        let open = await engine.openOrders()
        let order = try XCTUnwrap(open.first { $0.status == .needsAttention })
        XCTAssertEqual(order.userID, "")

        let toDave = Task { try await engine.assign(orderID: order.id, toUser: "dave") }
        await gate.waitForArrivals(1)
        let toErin = Task { try await engine.assign(orderID: order.id, toUser: "erin") }
        // Give the second call the time to reach the engine while the first one's save waits.
        for _ in 0..<200 { await Task.yield() }
        gate.open()
        let dave = try await toDave.value
        XCTAssertEqual(dave.userID, "dave")
        XCTAssertEqual(dave.status, .completed)
        do {
            let erin = try await toErin.value
            XCTFail("the order was dave's already; the second assign must fail, got \(erin.userID) \(erin.status)")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .invalidConfiguration)
        }
        await engine.waitUntilIdle()

        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["dave"])
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.userID, "dave", "the engine records the user the server credited")
        XCTAssertEqual(stored?.status, .completed)
        let daveEntitlements = try await engine.entitlements(user: "dave")
        XCTAssertEqual(daveEntitlements.map(\.productID), [Catalog.pro])
        let erinEntitlements = try await engine.entitlements(user: "erin")
        XCTAssertEqual(erinEntitlements, [])
    }

    /// A subscription whose first purchase waits for assignment renews. Its
    /// renewal followed "the purchase's user", nobody: it rested `purchased`
    /// with no user, never delivered, never retried, and never flagged, so
    /// the app had no reason to assign it and the paid renewal was never credited.
    func testARenewalOfAnUnassignedSubscriptionWaitsForAssignmentToo() async throws {
        let world = World()
        let engine = try await world.engine()
        let events = await EventLog(engine)
        await engine.setCurrentUser("carol")
        // A token no order holds: the first purchase waits for the app to assign it.
        try await world.store.add(Payment(productID: Catalog.monthly, orderToken: "9f0c7d4e-0000-4000-8000-000000000002", userID: "dave"))
        await engine.waitUntilIdle()
        await world.advance(by: 40 * 24 * 3600, engine)
        await engine.retryPendingDeliveries()

        let open = await engine.openOrders()
        XCTAssertEqual(open.count, 2, "the first purchase and its renewal")
        XCTAssertEqual(open.map(\.status), [.needsAttention, .needsAttention], "both wait for the app, flagged")
        XCTAssertEqual(open.map(\.userID), ["", ""], "nobody is credited by a guess")
        // The events reach the log through the engine's stream, after the
        // orders are saved; only a flagged order has one on its way, so a
        // broken flagging fails the counts below instead of waiting for ever.
        for order in open where order.status == .needsAttention {
            await events.waitForEvent { if case .needsAttention(let flagged) = $0 { return flagged.id == order.id } else { return false } }
        }
        let flagged = await events.events.filter { if case .needsAttention = $0 { return true } else { return false } }
        XCTAssertEqual(flagged.count, 2, "the app hears of each")
        let credits = await world.server.allCredits
        XCTAssertEqual(credits, [])

        // Assigning the purchase is enough: once the server accepts it, its
        // flagged renewal follows its user on its own (a second assign could
        // race that and find the renewal given or archived already).
        let purchase = try XCTUnwrap(open.first { order in order.transaction.map { $0.id == $0.originalID } ?? false })
        let assigned = try await engine.assign(orderID: purchase.id, toUser: "dave")
        XCTAssertEqual(assigned.status, .completed)
        await engine.waitUntilIdle()
        let renewal = try XCTUnwrap(open.first { $0.id != purchase.id })
        let followed = await world.orders.order(id: renewal.id)
        XCTAssertEqual(followed?.userID, "dave")
        XCTAssertEqual(followed?.status, .completed)
        let dave = await world.server.credits(forUser: "dave")
        XCTAssertEqual(dave.count, 2, "the purchase and its renewal, once each")
        let entitlements = try await engine.entitlements(user: "dave")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.monthly], "the renewal's period is running")
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished, [])
    }

    /// An app that assigns every flagged order of the purchase, as apps did
    /// before the engine gave a flagged renewal to its purchase's user on its
    /// own: each call succeeds, whichever comes first, and each transaction
    /// is credited to dave once. Another user is still refused.
    func testAssigningEveryFlaggedOrderOfAPurchaseSucceedsWhenTheEngineGaveTheRenewalFirst() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setCurrentUser("carol")
        try await world.store.add(Payment(productID: Catalog.monthly, orderToken: "9f0c7d4e-0000-4000-8000-000000000003", userID: "dave"))
        await engine.waitUntilIdle()
        await world.advance(by: 40 * 24 * 3600, engine)
        let open = await engine.openOrders()
        XCTAssertEqual(open.map(\.userID), ["", ""])

        for order in open {
            let assigned = try await engine.assign(orderID: order.id, toUser: "dave")
            XCTAssertEqual(assigned.userID, "dave")
            XCTAssertEqual(assigned.status, .completed, order.id)
        }
        await engine.waitUntilIdle()
        let dave = await world.server.credits(forUser: "dave")
        XCTAssertEqual(dave.count, 2, "the purchase and its renewal, once each")
        // Once more, archived: nothing changes; another user is refused.
        for order in open {
            let again = try await engine.assign(orderID: order.id, toUser: "dave")
            XCTAssertEqual(again.status, .completed)
            let refused = await assertThrows(.orderNotFound) { _ = try await engine.assign(orderID: order.id, toUser: "erin") }
            XCTAssertNotNil(refused)
        }
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.count, 2)
    }
}
