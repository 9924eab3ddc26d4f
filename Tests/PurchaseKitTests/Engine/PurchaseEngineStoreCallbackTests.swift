import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Strange store callbacks: duplicated, late, reordered, or missing the order token.
final class PurchaseEngineStoreCallbackTests: XCTestCase {
    func testDuplicatedCallbacksCreditOnce() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.setDuplicateDeliveries(3)
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        await engine.waitUntilIdle()
        XCTAssertEqual(result.order.status, .completed)
        let credits = await world.creditCounts()
        XCTAssertEqual(Array(credits.values), [1])
        let orders = await world.orders.orders(forUser: "alice")
        XCTAssertEqual(orders.count, 1, "duplicates make no new orders")
        let diagnostics = await engine.diagnostics
        XCTAssertGreaterThan(diagnostics.staleUpdatesIgnored, 0)
        XCTAssertEqual(diagnostics.invalidTransitionsAttempted, 0)
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 1])
    }

    func testLateAndReorderedCallbacksChangeNothing() async throws {
        for order in [ReleaseOrder.reversed, .shuffled, .asProduced] {
            let world = World()
            let engine = try await world.engine(world.configuration(storeTimeout: 60))
            await world.store.setHoldsUpdates(true)
            let call = Task { try await engine.purchase(productID: Catalog.pro, user: "alice") }
            await world.store.waitForPayments(count: 1) // the purchase reached the store
            await engine.waitUntilIdle() // and the store has answered what it will
            let held = await world.store.heldUpdateCount()
            XCTAssertEqual(held, 2, "purchasing and purchased are held back")
            await world.store.setHoldsUpdates(false)
            await world.store.releaseHeldUpdates(order: order)
            let result = try await call.value
            await engine.waitUntilIdle()
            guard case .success(let delivered) = result else { return XCTFail("\(order): \(result)") }
            XCTAssertEqual(delivered.status, .completed, "\(order)")
            let credits = await world.creditCounts()
            XCTAssertEqual(Array(credits.values), [1], "\(order)")
            let diagnostics = await engine.diagnostics
            XCTAssertEqual(diagnostics.invalidTransitionsAttempted, 0)
        }
    }

    func testLostTokenWithOneCandidateIsMatchedByProductAndTime() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true))
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .success(let order) = result else { return XCTFail("\(result)") }
        XCTAssertNil(order.transaction?.orderToken, "the store lost the token")
        XCTAssertEqual(order.source, .purchase, "matched to the waiting order, not a new one")
        let credits = await world.server.credits(forUser: "alice")
        XCTAssertEqual(credits.count, 1)
    }

    func testATokenlessCancelNeverClosesAnOrder() async throws {
        // The store reports alice's cancelled payment, three times, without its
        // token. Closing "the only coins order waiting" on that guess once
        // closed bob's order, whose tokenless payment then went to whoever was
        // logged in. A guess may keep an order waiting, never close it.
        let world = World()
        let engine = try await world.engine(world.configuration(storeTimeout: 60))
        await engine.setCurrentUser("carol")
        await world.store.scriptNextPurchases([
            PurchaseScript(.userCancel, faults: DeliveryFaults(losesOrderToken: true, extraDeliveries: 2)),
            PurchaseScript(.success, faults: DeliveryFaults(losesOrderToken: true)),
        ])
        let aliceCall = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await world.store.waitForPayments(count: 1)
        await engine.waitUntilIdle()
        let aliceOrders = await engine.openOrders(user: "alice")
        XCTAssertEqual(aliceOrders.map(\.status), [.purchasing], "a tokenless cancel is not matched by a guess")
        let unfinishedPayments = await world.store.unfinishedPaymentIDs()
        XCTAssertEqual(unfinishedPayments, [], "the cancelled payment is finished all the same")
        world.clock.advance(by: 60)
        await engine.waitUntilIdle()
        guard case .pending(_, .storeTimeout) = try await aliceCall.value else { return XCTFail("alice's call answers at the timeout") }

        let bob = try await engine.purchase(productID: Catalog.coins, user: "bob")
        await engine.waitUntilIdle()
        guard case .pending = bob else { return XCTFail("\(bob)") }
        let allCredits = await world.server.allCredits
        XCTAssertTrue(allCredits.isEmpty, "two orders of two users could own the payment: nobody is credited by a guess")
        let flagged = await engine.openOrders().filter { $0.status == .needsAttention }
        XCTAssertEqual(flagged.map(\.userID), [""], "it waits for assignment, never goes to carol")
        let assigned = try await engine.assign(orderID: try XCTUnwrap(flagged.first?.id), toUser: "bob")
        XCTAssertEqual(assigned.status, .completed)
        let bobCredits = await world.server.credits(forUser: "bob")
        XCTAssertEqual(bobCredits.count, 1)
    }

    func testLostTokenWithTwoCandidatesIsFlaggedNotGuessed() async throws {
        let world = World()
        let engine = try await world.engine(world.configuration(storeTimeout: 60))
        // A first order waits for Ask to Buy; a second order of the same product is paid with its token lost.
        await world.store.scriptNextPurchases([PurchaseScript(.askToBuy, faults: DeliveryFaults(losesOrderToken: true)),
                                               PurchaseScript(.success, faults: DeliveryFaults(losesOrderToken: true))])
        let first = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .pending(_, .awaitingApproval) = first else { return XCTFail("\(first)") }
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await world.store.waitForPayments(count: 2)
        await engine.waitUntilIdle() // the store answers the payment; it goes to review
        let second = try await call.value
        // Answered as soon as the payment went to review, never left waiting.
        guard case .pending(_, .awaitingReview) = second else { return XCTFail("\(second)") }
        await engine.waitUntilIdle()

        let flagged = await engine.openOrders(user: "alice").filter { $0.status == .needsAttention }
        XCTAssertEqual(flagged.count, 1)
        let order = try XCTUnwrap(flagged.first)
        XCTAssertEqual(order.source, .unknown)
        XCTAssertEqual(order.userID, "alice", "both candidates are alice's: the user is known, the order is not")
        XCTAssertTrue(order.hint?.contains("2 orders could match") ?? false, order.hint ?? "")
        var credits = await world.server.credits(forUser: "alice")
        XCTAssertTrue(credits.isEmpty, "nothing is credited by a guess")
        let finished = await world.store.isFinished(transactionID: try XCTUnwrap(order.transactionID))
        XCTAssertFalse(finished, "the paid transaction is kept until it is delivered")

        // The retry trigger delivers it to alice, once.
        await engine.retryPendingDeliveries(user: "alice")
        credits = await world.server.credits(forUser: "alice")
        XCTAssertEqual(credits.count, 1)
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .completed)
    }

    func testLostTokenWithCandidatesOfTwoUsersWaitsForAssignment() async throws {
        let world = World()
        let engine = try await world.engine(world.configuration(storeTimeout: 60))
        await world.store.scriptNextPurchases([PurchaseScript(.askToBuy, faults: DeliveryFaults(losesOrderToken: true)),
                                               PurchaseScript(.success, faults: DeliveryFaults(losesOrderToken: true))])
        _ = try await engine.purchase(productID: Catalog.coins, user: "alice")
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "bob") }
        await world.store.waitForPayments(count: 2)
        await engine.waitUntilIdle() // the payment goes to review and the call is answered
        _ = try await call.value
        await engine.waitUntilIdle() // the payment the call stopped waiting for reaches the store

        let flagged = await engine.openOrders().filter { $0.status == .needsAttention }
        let order = try XCTUnwrap(flagged.first)
        XCTAssertEqual(order.userID, "", "two users could own it: nobody is credited")
        await engine.retryPendingDeliveries()
        let allCredits = await world.server.allCredits
        XCTAssertTrue(allCredits.isEmpty)

        // Someone who knows (support, the app's server) assigns it.
        let assigned = try await engine.assign(orderID: order.id, toUser: "bob")
        XCTAssertEqual(assigned.status, .completed)
        let bobCredits = await world.server.credits(forUser: "bob")
        XCTAssertEqual(bobCredits.count, 1)
        do {
            _ = try await engine.assign(orderID: "nope", toUser: "bob")
            XCTFail("expected orderNotFound")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .orderNotFound)
        }
    }

    /// A transaction carrying an order token this install does not know was
    /// paid through the app for an order it no longer has (a reinstall, the
    /// app on another device): who paid is not known here, so it waits for
    /// the app to assign it, and is never credited to whoever is logged in.
    func testATokenNoOrderHoldsWaitsForAssignment() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setCurrentUser("carol")
        try await world.store.add(Payment(productID: Catalog.pro, orderToken: "9f0c7d4e-0000-4000-8000-000000000001", userID: "dave"))
        await engine.waitUntilIdle()
        let carol = await world.server.credits(forUser: "carol")
        XCTAssertTrue(carol.isEmpty)
        let flagged = await engine.openOrders().filter { $0.status == .needsAttention }
        let order = try XCTUnwrap(flagged.first)
        XCTAssertEqual(order.userID, "")
        _ = try await engine.assign(orderID: order.id, toUser: "dave")
        let dave = await world.server.credits(forUser: "dave")
        XCTAssertEqual(dave.count, 1)
    }

    func testAPurchaseFromAnotherDeviceIsCreditedToTheCurrentUser() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setCurrentUser("carol")
        // The same account buys on another device: the store delivers a transaction no order waits for.
        let otherDevice = SimulatedDevice(world: world)
        try await otherDevice.buy(Catalog.pro)
        await engine.waitUntilIdle()
        let orders = await world.orders.orders(forUser: "carol")
        XCTAssertEqual(orders.map(\.source), [.otherDevice])
        XCTAssertEqual(orders.map(\.status), [.completed])
        let entitlements = try await engine.entitlements(user: "carol")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.pro])
    }
}

/// A second device of the same store account: it adds payments with no
/// engine of ours attached, so its transactions reach our engine unannounced.
/// A purchase made outside the app (another device without it, a promoted
/// purchase): the transaction carries no order token.
struct SimulatedDevice {
    let world: World

    func buy(_ productID: String) async throws {
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true))
        try await world.store.add(Payment(productID: productID, orderToken: "token-of-another-device", userID: "someone"))
    }
}

final class AlreadyOwnedTests: XCTestCase {
    func testBuyingAnOwnedNonConsumableAgainChargesNothingAndSaysSo() async throws {
        let world = World()
        let engine = try await world.engine()
        let first = try await engine.purchase(productID: Catalog.pro, user: "alice").order
        for user in ["alice", "bob"] {
            do {
                _ = try await engine.purchase(productID: Catalog.pro, user: user)
                XCTFail("expected alreadyOwned for \(user)")
            } catch let error as PurchaseKitError {
                XCTAssertEqual(error.code, .paymentFailed)
                XCTAssertEqual(error.storeReason, .alreadyOwned)
            }
        }
        let transactions = await world.store.allTransactions()
        XCTAssertEqual(transactions.map(\.id), [first.transactionID].compactMap { $0 }, "nothing charged twice")
        let bobEntitlements = try await engine.entitlements(user: "bob")
        XCTAssertTrue(bobEntitlements.isEmpty, "alice's purchase is never credited to bob")
        let credits = await world.creditCounts()
        XCTAssertEqual(Array(credits.values), [1])
    }
}
