import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// A purchase call whose task is cancelled at each of its waits before the
/// payment reaches the store: it answers ``PurchaseKitError/Code/cancelled``
/// without waiting for what it waited on, and makes no order.
final class PurchaseCancellationTests: XCTestCase {
    /// Alice's coins payment is held at the store; a second call, for
    /// `productID` and `user`, is cancelled while it waits behind it, then the
    /// store lets the first one through. Answers the second call's error.
    private func cancelledCallBehindAHeldPayment(_ world: World, productID: String, user: String,
                                                 _ configure: (inout PurchaseEngine.Configuration) -> Void) async throws -> PurchaseKitError? {
        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.add))
        var configuration = world.configuration(queue: stalling)
        configure(&configuration)
        let engine = try await world.engine(configuration)
        let first = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await stalling.waitForCalls(.add)
        let second = Task { try await engine.purchase(productID: productID, user: user) }
        await engine.waitUntilQueued(1)
        second.cancel()
        // Answered while the store still holds the first payment: the call does not wait for it.
        let error = await assertThrows(.cancelled) { _ = try await second.value }
        gate.open()
        let firstResult = try await first.value
        XCTAssertEqual(firstResult.order.status, .completed)
        await engine.waitUntilIdle()
        return error
    }

    func testACallCancelledWhileQueuedBehindTheSameProductMakesNoOrder() async throws {
        let world = World()
        let error = try await cancelledCallBehindAHeldPayment(world, productID: Catalog.coins, user: "alice") {
            $0.policies.duplicatePurchasePolicy = .wait
        }
        XCTAssertNil(error?.orderID, "no order was made for the cancelled call")
        let orders = await world.orders.orders(forUser: "alice")
        XCTAssertEqual(orders.count, 1, "the cancelled call made no order: \(orders.map(\.status))")
    }

    func testACallCancelledWhileWaitingForAPurchaseSlotMakesNoOrder() async throws {
        let world = World()
        _ = try await cancelledCallBehindAHeldPayment(world, productID: Catalog.pro, user: "bob") {
            $0.limits.maximumConcurrentPurchases = 1
        }
        let bob = await world.orders.orders(forUser: "bob")
        XCTAssertTrue(bob.isEmpty, "the cancelled call made no order: \(bob.map(\.status))")
    }

    func testACallCancelledWhileTheStoreSaysWhetherPaymentsAreAllowedIsCancelledNotTimedOut() async throws {
        let world = World()
        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.canMakePayments))
        let engine = try await world.engine(world.configuration(queue: stalling, storeTimeout: 60))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await stalling.waitForCalls(.canMakePayments)
        call.cancel()
        // Had the call kept waiting for the store, its store timeout would answer it now.
        world.clock.advance(by: 60)
        _ = await assertThrows(.cancelled) { _ = try await call.value }
        gate.open()
        await engine.waitUntilIdle()
        await assertAliceHasNoOrderAndNoPayment(world, "the cancelled call made no order")
    }

    /// Cancelled while the store loads the product: answered at once, as
    /// cancelled (not as a product request that failed), and no order is made.
    func testACallCancelledWhileItsProductLoadsIsCancelledAndMakesNoOrder() async throws {
        let world = World()
        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.products))
        let engine = try await world.engine(world.configuration(queue: stalling, storeTimeout: 60))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await stalling.waitForCalls(.products)
        call.cancel()
        let error = await assertThrows(.cancelled) { _ = try await call.value }
        XCTAssertNil(error?.orderID, "no order was made")
        gate.open()
        await engine.waitUntilIdle()
        await assertAliceHasNoOrderAndNoPayment(world, "the cancelled call made no order")
    }

    /// Cancelled while the order generator makes the order's id: whether the
    /// generator answers the id or throws at the cancellation, the call is
    /// cancelled and no order is saved.
    func testACallCancelledWhileItsOrderIDIsMadeIsCancelledAndSavesNoOrder() async throws {
        for honoursCancellation in [false, true] {
            let world = World()
            let gate = Gate()
            let generator = GatedOrderGenerator(gate: gate, honoursCancellation: honoursCancellation)
            let engine = try await world.engine(world.configuration(generator: generator))
            let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
            await gate.waitForArrivals(1)
            call.cancel()
            gate.open()
            let error = await assertThrows(.cancelled) { _ = try await call.value }
            XCTAssertNil(error?.orderID, "no order was made (generator honours cancellation: \(honoursCancellation))")
            await engine.waitUntilIdle()
            await assertAliceHasNoOrderAndNoPayment(world, "no order was saved")
        }
    }

    /// Alice has no order, open or archived, and the store took no payment.
    private func assertAliceHasNoOrderAndNoPayment(_ world: World, _ message: String,
                                                   file: StaticString = #filePath, line: UInt = #line) async {
        let orders = await world.orders.orders(forUser: "alice")
        XCTAssertTrue(orders.isEmpty, "\(message): \(orders.map(\.status))", file: file, line: line)
        let payments = await world.store.allTransactions()
        XCTAssertTrue(payments.isEmpty, file: file, line: line)
    }
}

/// An order generator that answers once `gate` lets it through; with
/// `honoursCancellation`, it throws when its caller's task was cancelled meanwhile.
struct GatedOrderGenerator: OrderGenerator {
    let gate: Gate
    var honoursCancellation = false

    func makeOrderID(for request: OrderRequest) async throws -> String {
        await gate.pass()
        if honoursCancellation { try Task.checkCancellation() }
        return "order-\(request.userID)"
    }
}

extension PurchaseEngine {
    /// Returns once `count` purchase calls wait in the task queue for their
    /// turn, or after 100,000 turns (the test's own checks then fail, rather
    /// than the test hanging).
    func waitUntilQueued(_ count: Int) async {
        for _ in 0..<100_000 where queuedCalls < count { await Task.yield() }
    }
}

/// A purchase call answered at its store timeout while the store still has
/// its payment (`add` has not returned: the payment sheet is up): the
/// payment is still in flight, so a second call for the same user and
/// product starts none until the store lets go of the first.
final class PaymentInFlightAfterTimeoutTests: XCTestCase {
    /// Alice's first coins purchase, answered `.pending(_, .storeTimeout)`
    /// while the store still holds its `add` (until `gate` opens).
    private func firstPaymentHeldPastItsTimeout(duplicates: PurchaseEngine.DuplicatePurchasePolicy) async throws
        -> (Gate, InterceptingPaymentQueue, PurchaseEngine) {
        let world = World()
        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.add))
        let engine = try await world.engine(world.configuration(queue: stalling, duplicates: duplicates, storeTimeout: 30))
        let first = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await stalling.waitForCalls(.add)
        world.clock.advance(by: 30)
        let answer = try await first.value
        guard case .pending(_, .storeTimeout) = answer else {
            XCTFail("the first call is answered at its store timeout, not \(answer)")
            throw XCTSkip("setup failed")
        }
        return (gate, stalling, engine)
    }

    func testASecondCallWhileTheStoreStillTakesTheFirstPaymentStartsNone() async throws {
        let (gate, stalling, engine) = try await firstPaymentHeldPastItsTimeout(duplicates: .reject)

        _ = await assertThrows(.purchaseInProgress) { _ = try await engine.purchase(productID: Catalog.coins, user: "alice") }
        let arrivals = stalling.calls(.add).count
        XCTAssertEqual(arrivals, 1, "one payment in flight for alice's coins")

        gate.open()
        await engine.waitUntilIdle()
        let again = try await engine.purchase(productID: Catalog.coins, user: "alice")
        XCTAssertEqual(again.order.status, .completed, "once the store let go of the first payment, alice may buy again")
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 2])
    }

    func testAWaitingSecondCallStartsOnceTheStoreLetsGoOfTheFirstPayment() async throws {
        let (gate, stalling, engine) = try await firstPaymentHeldPastItsTimeout(duplicates: .wait)
        let second = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        gate.open()
        let result = try await second.value
        XCTAssertEqual(result.order.status, .completed)
        let arrivals = stalling.calls(.add).count
        XCTAssertEqual(arrivals, 2)
    }

    func testAPaymentAnsweredBeforeTheStoresAddReturnedIsNoLongerInFlight() async throws {
        let world = World()
        let gate = Gate()
        // The store takes and answers each payment, then holds `add`'s return.
        let slow = InterceptingPaymentQueue(wrapping: world.store) { call in
            call.name == .add ? .proceedThen { _ in await gate.pass() } : .proceed
        }
        let engine = try await world.engine(world.configuration(queue: slow, storeTimeout: 30))
        let first = try await engine.purchase(productID: Catalog.coins, user: "alice")
        XCTAssertEqual(first.order.status, .completed)
        // The first payment has its outcome: buying again is no second payment in flight.
        let second = try await engine.purchase(productID: Catalog.coins, user: "alice")
        XCTAssertEqual(second.order.status, .completed)
        gate.open()
        await engine.waitUntilIdle()
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 2])
    }

    func testShutdownAnswersACallWaitingBehindAPaymentTheStoreStillTakes() async throws {
        let (gate, _, engine) = try await firstPaymentHeldPastItsTimeout(duplicates: .wait)
        let second = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await engine.waitUntilQueued(1)
        await engine.shutdown()
        _ = await assertThrows(.engineShutDown) { _ = try await second.value }
        gate.open()
    }
}
