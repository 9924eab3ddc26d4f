import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

final class PurchaseEnginePurchaseTests: XCTestCase {
    func testSuccessfulPurchaseIsDeliveredOnceThenFinished() async throws {
        let world = World()
        let engine = try await world.engine()
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .success(let order) = result else { return XCTFail("expected success, got \(result)") }
        XCTAssertEqual(order.status, .completed)
        XCTAssertEqual(order.userID, "alice")
        let transactionID = try XCTUnwrap(order.transactionID)
        XCTAssertTrue(order.isFinished)
        let finished = await world.store.isFinished(transactionID: transactionID)
        XCTAssertTrue(finished)
        let credits = await world.server.credits(forTransactionID: transactionID)
        XCTAssertEqual(credits.map(\.userID), ["alice"])
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 1])
        // Resting orders leave the working set but can still be found.
        let open = await engine.openOrders()
        XCTAssertTrue(open.isEmpty)
        let archived = await world.orders.order(transactionID: transactionID)
        XCTAssertEqual(archived?.status, .completed)
    }

    func testAPurchaseWritesEachStateOnceAndAnswersWithoutReadingItsOrderBack() async throws {
        let world = World()
        let orders = InterceptingOrderStore(wrapping: world.orders)
        let engine = try await world.engine(world.configuration(store: orders))
        orders.clearCalls()
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        await engine.waitUntilIdle()
        XCTAssertEqual(result.order.status, .completed)
        let id = result.order.id
        let reads = orders.calls.filter { if case .orderWithID(id) = $0 { return true } else { return false } }
        // One lookup before the order exists (is the generated id new?), none after.
        XCTAssertEqual(reads.count, 1, "\(orders.calls)")
        let saved = orders.calls.compactMap { call -> OrderStatus? in
            if case .save(let order) = call, order.id == id { return order.status } else { return nil }
        }
        XCTAssertEqual(saved, [.created, .purchasing, .purchased, .delivered, .completed])
        XCTAssertEqual(orders.calls(.archive).count, 1)
    }

    func testEventsShowEveryStateInOrderToEverySubscriber() async throws {
        let world = World()
        let engine = try await world.engine()
        let first = await EventLog(engine)
        let second = await EventLog(engine)
        let result = try await engine.purchase(productID: Catalog.pro, user: "alice")
        await engine.waitUntilIdle()
        let expected: [OrderStatus] = [.created, .purchasing, .purchased, .delivered, .completed]
        // created, purchasing, purchased, delivered (+ entitlements changed), completed.
        for log in [first, second] {
            await log.waitForEvent { if case .orderChanged(let order, _) = $0 { return order.status == .completed }; return false }
            let statuses = await log.statuses(of: result.order.id)
            XCTAssertEqual(statuses, expected)
            let events = await log.events
            XCTAssertTrue(events.contains(.entitlementsChanged(user: "alice")))
            await log.stop()
        }
    }

    func testPurchaseBeforeStartIsATypedError() async throws {
        let world = World()
        let engine = try PurchaseEngine(configuration: world.configuration())
        do {
            _ = try await engine.purchase(productID: Catalog.coins, user: "alice")
            XCTFail("expected an error")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .invalidConfiguration)
        }
    }

    func testBadConfigurationIsRejectedAtInit() {
        let world = World()
        var configuration = world.configuration()
        configuration.limits.maximumConcurrentPurchases = 0
        XCTAssertThrowsError(try PurchaseEngine(configuration: configuration)) { error in
            XCTAssertEqual((error as? PurchaseKitError)?.keyPath, "limits.maximumConcurrentPurchases")
        }
        configuration = world.configuration(retry: RetryPolicy(jitter: 1.5))
        XCTAssertThrowsError(try PurchaseEngine(configuration: configuration))
    }

    func testPaymentsNotAllowed() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.setCanMakePayments(false)
        await assertThrows(.paymentsNotAllowed) { _ = try await engine.purchase(productID: Catalog.coins, user: "alice") }
        let transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty)
    }

    func testUnknownProductListsTheIdentifier() async throws {
        let world = World()
        let engine = try await world.engine()
        let error = await assertThrows(.invalidProductIdentifiers) {
            _ = try await engine.purchase(productID: "com.example.nope", user: "alice")
        }
        XCTAssertEqual(error?.productIDs, ["com.example.nope"])
        let saved = await world.orders.loadOpenOrders().orders
        XCTAssertTrue(saved.isEmpty, "no order for a product that does not exist")
    }

    func testProductRequestFailure() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.setProductRequestsFail(true)
        await assertThrows(.productRequestFailed) { _ = try await engine.purchase(productID: Catalog.coins, user: "alice") }
    }

    func testOrderGenerationFailureChargesNothing() async throws {
        let world = World()
        let engine = try await world.engine(world.configuration(generator: FailingOrderGenerator()))
        await assertThrows(.orderGenerationFailed) { _ = try await engine.purchase(productID: Catalog.coins, user: "alice") }
        let transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty)
    }

    /// Two purchases at once (two users, two products) that the generator
    /// gave one id. Both once found the id free while the first one's save
    /// was in flight; the second one's order then replaced the first one's,
    /// whose payment went to the store with a token no order held any more.
    func testTwoPurchasesGivenOneOrderIDAtOnceChargeOnlyTheFirst() async throws {
        let world = World()
        let gate = Gate()
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            // Holds the first save of each new order, as a group commit does.
            if case .save(let order) = call, order.status == .created { await gate.pass() }
            return .proceed
        }
        let engine = try await world.engine(world.configuration(store: orders, generator: RepeatingOrderGenerator()))
        let alice = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await gate.waitForArrivals(1)
        let bob = Task { try await engine.purchase(productID: Catalog.pro, user: "bob") }
        // Give the second call the time to reach the engine while the first one's save waits.
        for _ in 0..<200 { await Task.yield() }
        gate.open()
        let result = try await alice.value
        XCTAssertEqual(result.order.userID, "alice")
        XCTAssertEqual(result.order.status, .completed)
        await assertThrows(.orderGenerationFailed) { _ = try await bob.value }
        await engine.waitUntilIdle()

        let transactions = await world.store.allTransactions()
        XCTAssertEqual(transactions.map(\.productID), [Catalog.coins], "only the first purchase reached the store")
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["alice"])
        let stored = await world.orders.order(id: result.order.id)
        XCTAssertEqual(stored?.userID, "alice")
        let flagged = await engine.openOrders().filter { $0.status == .needsAttention }
        XCTAssertEqual(flagged, [], "alice's payment found her order")
    }

    func testBadArgumentsAreTypedErrors() async throws {
        let world = World()
        let engine = try await world.engine()
        await assertThrows(.invalidConfiguration) { _ = try await engine.purchase(productID: Catalog.coins, user: "") }
        await assertThrows(.invalidConfiguration) { _ = try await engine.purchase(productID: Catalog.coins, user: "a", quantity: 0) }
    }

    func testUserCancel() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.scriptNextPurchase(.userCancel)
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .userCancelled(let order) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(order.status, .cancelled)
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertTrue(balance.isEmpty)
    }

    func testStoreFailureCarriesTheReason() async throws {
        let world = World()
        let engine = try await world.engine()
        for reason in [StoreFailureReason.paymentInvalid, .paymentNotAllowed, .networkError, .productNotAvailable] {
            await world.store.scriptNextPurchase(.fail(reason))
            let error = await assertThrows(.paymentFailed) { _ = try await engine.purchase(productID: Catalog.coins, user: "alice") }
            XCTAssertEqual(error?.storeReason, reason)
            let stored = await world.orders.order(id: try XCTUnwrap(error?.orderID))
            XCTAssertEqual(stored?.status, .failed)
        }
    }

    func testAskToBuyGrantsNothingUntilApproved() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.scriptNextPurchase(.askToBuy)
        let result = try await engine.purchase(productID: Catalog.pro, user: "kid")
        guard case .pending(let order, .awaitingApproval) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(order.status, .deferred)
        var entitlements = try await engine.entitlements(user: "kid")
        XCTAssertTrue(entitlements.isEmpty, "a deferred purchase grants nothing")

        // A second purchase of the same product is allowed: the first rests.
        let pending = await world.store.pendingAskToBuy()
        XCTAssertEqual(pending.count, 1)
        try await world.store.approveAskToBuy(id: try XCTUnwrap(pending.first).id)
        await engine.waitUntilIdle()
        entitlements = try await engine.entitlements(user: "kid")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.pro])
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .completed)
        XCTAssertEqual(stored?.source, .purchase)
    }

    func testAskToBuyDeclined() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.scriptNextPurchase(.askToBuy)
        let order = try await engine.purchase(productID: Catalog.pro, user: "kid").order
        let request = await world.store.pendingAskToBuy().first
        try await world.store.declineAskToBuy(id: try XCTUnwrap(request).id)
        await engine.waitUntilIdle()
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .failed)
        XCTAssertEqual(stored?.storeFailureReason, .declined)
        let entitlements = try await engine.entitlements(user: "kid")
        XCTAssertTrue(entitlements.isEmpty)
    }

    func testInterruptedPurchaseCompletesAfterTheUserActs() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.scriptNextPurchase(.interrupted)
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .pending(let order, .actionRequired) = result else { return XCTFail("\(result)") }
        let interrupted = await world.store.pendingInterrupted().first
        try await world.store.completeInterruptedPurchase(id: try XCTUnwrap(interrupted).id)
        await engine.waitUntilIdle()
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .completed)
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 1])
    }

    func testCompletionHandlerVariant() async throws {
        let world = World()
        let engine = try await world.engine()
        let result = await withCheckedContinuation { continuation in
            engine.purchase(productID: Catalog.coins, user: "alice") { continuation.resume(returning: $0) }
        }
        XCTAssertEqual(try result.get().order.status, .completed)
        let failure = await withCheckedContinuation { continuation in
            engine.purchase(productID: "nope", user: "alice") { continuation.resume(returning: $0) }
        }
        XCTAssertThrowsError(try failure.get()) { XCTAssertEqual(($0 as? PurchaseKitError)?.code, .invalidProductIdentifiers) }
    }

    func testStoreTimeoutReturnsPendingAndThePurchaseStillCompletes() async throws {
        let world = World()
        let engine = try await world.engine(world.configuration(storeTimeout: 30))
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(holdsUpdates: true))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await world.store.waitForPayments(count: 1)
        world.clock.advance(by: 30)
        let result = try await call.value
        guard case .pending(let order, .storeTimeout) = result else { return XCTFail("\(result)") }
        await world.store.releaseHeldUpdates()
        await engine.waitUntilIdle()
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .completed)
    }
}
