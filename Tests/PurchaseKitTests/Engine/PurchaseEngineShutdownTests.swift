import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
import XCTest

/// `shutdown()`: timers, work and streams end, waiting calls are answered,
/// and nothing paid is lost (the next engine delivers it).
final class PurchaseEngineShutdownTests: XCTestCase {
    private func waitingEngine(_ world: World, users: [String]) async throws -> (PurchaseEngine, [Task<PurchaseResult, any Error>]) {
        var configuration = world.configuration(storeTimeout: 30, verificationTimeout: 10)
        configuration.limits.paymentExpiry = 3_600
        let engine = try await world.engine(configuration)
        await world.store.setHoldsUpdates(true)
        let events = await engine.events()
        let calls = users.map { user in
            Task { try await engine.purchase(productID: Catalog.coins, user: user) }
        }
        var purchasing = 0
        for await event in events {
            if case .orderChanged(let order, _) = event, order.status == .purchasing { purchasing += 1 }
            if purchasing == users.count { break }
        }
        await engine.waitUntilIdle()
        return (engine, calls)
    }

    func testShutdownAnswersWaitingCallsEndsStreamsAndLeavesNoTimer() async throws {
        let world = World()
        let (engine, calls) = try await waitingEngine(world, users: ["alice", "bob"])
        XCTAssertEqual(world.clock.pendingSleepers, 1, "the engine's timers are set")
        let stream = await engine.events()

        await engine.shutdown()

        for call in calls {
            do {
                let result = try await call.value
                XCTFail("a waiting call must be answered with an error, got \(result)")
            } catch let error as PurchaseKitError {
                XCTAssertEqual(error.code, .engineShutDown)
            }
        }
        XCTAssertEqual(world.clock.pendingSleepers, 0, "no timer outlives the engine")
        let retries = await engine.scheduledRetries
        XCTAssertTrue(retries.isEmpty)
        var eventsAfter = 0
        for await _ in stream { eventsAfter += 1 }  // ends: the stream finished
        XCTAssertEqual(eventsAfter, 0)

        do {
            _ = try await engine.purchase(productID: Catalog.coins, user: "carol")
            XCTFail("a purchase after shutdown must throw")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .engineShutDown)
        }
        do {
            _ = try await engine.restorePurchases(user: "alice")
            XCTFail("a restore after shutdown must throw")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .engineShutDown)
        }
        do {
            _ = try await engine.spend(1, of: Catalog.coins, user: "alice", spendID: "after-shutdown")
            XCTFail("a spend after shutdown must throw")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .engineShutDown)
        }
        await engine.shutdown() // twice changes nothing
    }

    /// An order owed a delivery (the server was down): after shutdown, the
    /// manual retry and the manual finish say that the engine is shut down,
    /// instead of answering as if they had done something.
    func testRetryAndFinishAfterShutdownSayTheEngineIsShutDown() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.server.setFaultRates(ServerFaultRates(serverError: 1))
        let owed = try await engine.purchase(productID: Catalog.coins, user: "alice").order
        XCTAssertEqual(owed.status, .purchased)
        await engine.shutdown()
        await world.server.setFaultRates(.none)
        await assertThrows(.engineShutDown) { _ = try await engine.retry(orderID: owed.id) }
        await assertThrows(.engineShutDown) { _ = try await engine.finish(orderID: owed.id) }
        let credits = await world.creditCounts()
        XCTAssertEqual(credits, [try XCTUnwrap(owed.transactionID): 0], "nothing was delivered by the shut-down engine")
    }

    func testAPaymentTakenBeforeShutdownIsDeliveredOnceByTheNextEngine() async throws {
        let world = World()
        let (engine, calls) = try await waitingEngine(world, users: ["alice"])
        await engine.shutdown()
        _ = try? await calls[0].value
        // The store answers now, to the engine that was shut down: it takes nothing on.
        await world.store.releaseHeldUpdates()
        let stored = await world.orders.loadOpenOrders().orders
        XCTAssertEqual(stored.map(\.status), [.purchasing], "nothing was saved after shutdown")

        let next = try await world.engine()
        await next.waitUntilIdle()
        let credits = await world.creditCounts()
        XCTAssertEqual(credits.count, 1)
        XCTAssertEqual(credits.values.first, 1, "delivered once, by the next engine")
        let balance = try await next.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 1)
    }

    /// Shut down while the new order's first save is out: the call is
    /// answered `engineShutDown` (not a failed save), nothing is charged, and
    /// the order, left `created`, is closed by the next engine.
    func testShutdownWhileTheNewOrderIsSavedChargesNothing() async throws {
        let world = World()
        let gate = Gate()
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            guard case .save(let order) = call, order.status == .created else { return .proceed }
            return .proceedThen { _ in await gate.pass() }
        }
        let engine = try await world.engine(world.configuration(store: orders))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await gate.waitForArrivals(1)
        await engine.shutdown()
        gate.open()
        do {
            let result = try await call.value
            XCTFail("expected engineShutDown, got \(result)")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .engineShutDown)
            XCTAssertNotNil(error.orderID, "the order was made: the answer names it")
        }
        let charged = await world.store.allTransactions()
        XCTAssertTrue(charged.isEmpty, "nothing was charged")

        _ = try await world.engine()
        let stored = await world.orders.orders(forUser: "alice")
        XCTAssertEqual(stored.map(\.status), [.failed], "the next engine closed the order nobody paid")
    }

    /// Shut down while the new order's token is checked against the stored
    /// orders, before the order's first save: a shut-down engine saves no order.
    func testShutdownBeforeTheNewOrderIsSavedSavesNone() async throws {
        let world = World()
        let gate = Gate()
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            if call.name == .orderWithToken { await gate.pass() }
            return .proceed
        }
        let engine = try await world.engine(world.configuration(store: orders))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await gate.waitForArrivals(1)
        await engine.shutdown()
        gate.open()
        _ = await assertThrows(.engineShutDown) { _ = try await call.value }
        let stored = await world.orders.orders(forUser: "alice")
        XCTAssertTrue(stored.isEmpty, "the shut-down engine saved an order: \(stored.map(\.status))")
        let charged = await world.store.allTransactions()
        XCTAssertTrue(charged.isEmpty, "nothing was charged")
    }

    // Calls waiting on the store when the engine shuts down. Shutdown drops
    // every timer, so their timeouts could no longer end them: without an
    // answer at shutdown, each of these tests never returns.

    func testShutdownDuringLaunchEndsStart() async throws {
        let world = World()
        let gate = Gate()
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            call.name == .loadOpenOrders ? .proceedThen { _ in await gate.pass() } : .proceed
        }
        let engine = try PurchaseEngine(configuration: world.configuration(store: orders))
        let start = Task { try await engine.start() }
        await gate.waitForArrivals(1)
        await engine.shutdown()
        gate.open()
        do {
            _ = try await start.value
            XCTFail("a launch the engine was shut down during must throw")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .engineShutDown)
        }
        do {
            _ = try await engine.start()
            XCTFail("start() after shutdown must throw")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .engineShutDown)
        }
    }

    /// A launch on a store that never replays its transactions, waiting.
    private func launchTheStoreNeverAnswers(_ world: World, _ configure: (inout PurchaseEngine.Configuration) -> Void = { _ in })
        async throws -> (PurchaseEngine, Task<OrderLoadReport, any Error>) {
        let stalled = InterceptingPaymentQueue(wrapping: world.store, hook: Gate().holding(.attach)) // never answers
        var configuration = world.configuration(queue: stalled)
        configure(&configuration)
        let engine = try PurchaseEngine(configuration: configuration)
        let start = Task { try await engine.start() }
        await stalled.waitForCalls(.attach)
        return (engine, start)
    }

    func testShutdownWhileTheStoreReplaysEndsStart() async throws {
        let world = World()
        let (engine, start) = try await launchTheStoreNeverAnswers(world)
        await engine.shutdown()
        await assertThrows(.engineShutDown) { _ = try await start.value }
        XCTAssertEqual(world.clock.pendingSleepers, 0, "no timer outlives the engine")
    }

    func testShutdownEndsALaunchWaitingWithoutATimeLimit() async throws {
        let world = World()
        // The launch waits for the replay as long as it takes.
        let (engine, start) = try await launchTheStoreNeverAnswers(world) { $0.limits.launchTimeout = nil }
        XCTAssertEqual(world.clock.pendingSleepers, 0, "a wait without a time limit sets no timer on the clock")
        await engine.shutdown()
        await assertThrows(.engineShutDown) { _ = try await start.value }
    }

    func testShutdownEndsARestoreWaitingOnTheStore() async throws {
        let world = World()
        let stalled = InterceptingPaymentQueue(wrapping: world.store, hook: Gate().holding(.restoreCompletedTransactions))
        let engine = try await world.engine(world.configuration(queue: stalled, storeTimeout: 30))
        let restore = Task { try await engine.restorePurchases(user: "alice") }
        await stalled.waitForCalls(.restoreCompletedTransactions)
        await engine.shutdown()
        do {
            _ = try await restore.value
            XCTFail("a restore the engine was shut down during must throw")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .engineShutDown)
        }
    }

    func testShutdownEndsAPurchaseAskingWhetherPaymentsAreAllowed() async throws {
        let world = World()
        let stalled = InterceptingPaymentQueue(wrapping: world.store, hook: Gate().holding(.canMakePayments))
        let engine = try await world.engine(world.configuration(queue: stalled, storeTimeout: 30))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await stalled.waitForCalls(.canMakePayments)
        await engine.shutdown()
        do {
            let result = try await call.value
            XCTFail("expected engineShutDown, got \(result)")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .engineShutDown, "not a timeout: the store was never given the time")
        }
    }
}
