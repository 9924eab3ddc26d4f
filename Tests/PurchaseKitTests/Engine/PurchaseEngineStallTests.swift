import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
import XCTest

/// A store that stops answering, a caller that gives up, a payment nobody
/// answers: every call still ends, and nothing paid is lost or misattributed.
final class PurchaseEngineStallTests: XCTestCase {
    func testAStoreWhoseAddNeverReturnsCannotHoldThePurchasePastItsTimeout() async throws {
        let world = World()
        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.add))
        let engine = try await world.engine(world.configuration(queue: stalling, storeTimeout: 60))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await stalling.waitForCalls(.add)
        world.clock.advance(by: 60)
        let result = try await call.value
        guard case .pending(let order, .storeTimeout) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(order.status, .purchasing)

        // The store answers at last: the payment is delivered, once, to alice.
        gate.open()
        await engine.waitUntilIdle()
        let credits = await world.server.credits(forUser: "alice")
        XCTAssertEqual(credits.count, 1)
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .completed)
    }

    func testAStoreThatNeverSaysWhetherPaymentsAreAllowedEndsTheCallWithATimeout() async throws {
        let world = World()
        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.canMakePayments))
        let engine = try await world.engine(world.configuration(queue: stalling, storeTimeout: 60))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await stalling.waitForCalls(.canMakePayments)
        world.clock.advance(by: 60)
        do {
            _ = try await call.value
            XCTFail("expected a timeout")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .timeout)
        }
        let transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty, "nothing was charged")
        gate.open()
    }

    func testAFinishThatNeverReturnsDoesNotHoldTheOrder() async throws {
        let world = World()
        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.finish))
        let engine = try await world.engine(world.configuration(queue: stalling, storeTimeout: 60))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await stalling.waitForCalls(.finish)
        world.clock.advance(by: 60)
        // The call's own store timeout and the finish's run out together:
        // either answer is right, as long as the order is credited.
        let result = try await call.value
        XCTAssertEqual(result.order.status, .delivered, "credited; the finish is retried later")
        let credits = await world.server.credits(forUser: "alice")
        XCTAssertEqual(credits.count, 1)
        gate.open()
        await engine.retryPendingDeliveries()
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertTrue(unfinished.isEmpty)
    }

    func testLaunchCompletesWhenTheStoreNeverReplaysAndCatchesUpWhenItDoes() async throws {
        let world = World()
        // The store charged while no app was attached (a killed launch): the
        // transaction waits unfinished for the next attach.
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true))
        try await world.store.add(Payment(productID: Catalog.pro, quantity: 1, orderToken: UUID().uuidString.lowercased(), userID: "alice"))
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished.count, 1)

        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.attach))
        var configuration = world.configuration(queue: stalling)
        configuration.limits.launchTimeout = 5
        let second = try PurchaseEngine(configuration: configuration)
        await second.setCurrentUser("alice")
        let launch = Task { try await second.start() }
        await stalling.waitForCalls(.attach)
        world.clock.advance(by: 5)
        _ = try await launch.value // launch completed without the store

        gate.open()
        await second.waitUntilIdle()
        let credits = await world.server.credits(forUser: "alice")
        XCTAssertEqual(credits.count, 1, "the replay is handled when the store answers")
        let left = await world.store.unfinishedTransactions()
        XCTAssertTrue(left.isEmpty)
    }

    func testACancelledCallReturnsAtOnceAndItsOrderCarriesOn() async throws {
        let world = World()
        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.add))
        let second = try await world.engine(world.configuration(queue: stalling)) // no store timeout
        let pending = Task { try await second.purchase(productID: Catalog.coins, user: "bob") }
        await stalling.waitForCalls(.add)
        pending.cancel()
        do {
            _ = try await pending.value
            XCTFail("a cancelled call must not wait for the store")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .cancelled)
            XCTAssertFalse(error.advice.isEmpty)
        }
        gate.open()
        await second.waitUntilIdle()
        let bob = await world.server.credits(forUser: "bob")
        XCTAssertEqual(bob.count, 1, "the order carried on after its caller left")
    }

    func testACallCancelledBeforeThePaymentChargesNothing() async throws {
        let world = World()
        let engine = try await world.engine()
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await engine.purchase(productID: Catalog.coins, user: "alice")
        }
        do {
            _ = try await call.value
            XCTFail("expected cancelled")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .cancelled)
        }
        await engine.waitUntilIdle()
        let transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty, "nothing was charged")
        let orders = await world.orders.orders(forUser: "alice")
        XCTAssertEqual(orders.map(\.status), [], "a call cancelled before its order was made makes none")
    }

    func testAnUnansweredPaymentExpiresAndALatePaymentStillReachesItsUser() async throws {
        let world = World()
        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.add))
        var configuration = world.configuration(queue: stalling, storeTimeout: 60)
        configuration.limits.paymentExpiry = 3600
        let engine = try await world.engine(configuration)
        await engine.setCurrentUser("bob")
        let call = Task { try await engine.purchase(productID: Catalog.season, user: "alice") }
        await stalling.waitForCalls(.add)
        world.clock.advance(by: 60)
        guard case .pending(let order, .storeTimeout) = try await call.value else { return XCTFail() }
        // The engine is not idle while the store holds the payment: wait for the expiry's event instead.
        let events = await engine.events()
        world.clock.advance(by: 3600)
        for await event in events {
            if case .orderChanged(let changed, from: .purchasing) = event, changed.id == order.id { break }
        }
        let expired = await world.orders.order(id: order.id)
        XCTAssertEqual(expired?.status, .failed)
        XCTAssertEqual(expired?.lastErrorCode, .timeout)

        // The store answers a day late: alice's archived order takes the payment, not bob who is logged in.
        gate.open()
        await engine.waitUntilIdle()
        let alice = await world.server.credits(forUser: "alice")
        let bob = await world.server.credits(forUser: "bob")
        XCTAssertEqual(alice.count, 1)
        XCTAssertTrue(bob.isEmpty)
        let paid = await world.orders.order(id: order.id)
        XCTAssertEqual(paid?.status, .completed)
    }

    func testRetryTriggersDeliverABoundedNumberAtOnce() async throws {
        let world = World()
        let inFlight = InFlightCounter()
        let verifier = inFlight.verifier(wrapping: world.server) {
            // Give every other delivery that was started a chance to overlap this one.
            for _ in 0..<20 { await Task.yield() }
        }
        await world.server.failNext(6, with: .serverError(statusCode: 503))
        var configuration = world.configuration(verifier: verifier)
        configuration.limits.maximumConcurrentDeliveries = 2
        let engine = try await world.engine(configuration)
        for user in (1...6).map({ "user-\($0)" }) {
            _ = try await engine.purchase(productID: Catalog.coins, user: user)
        }
        inFlight.reset()
        await engine.retryPendingDeliveries()
        XCTAssertEqual(inFlight.calls, 6)
        XCTAssertLessThanOrEqual(inFlight.maximum, 2)
        let credited = await world.server.allCredits
        XCTAssertEqual(credited.count, 6)
    }
}
