import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
import XCTest

/// A store that stops answering, a caller that gives up, a payment nobody
/// answers: every call still ends, and nothing paid is lost or misattributed.
final class PurchaseEngineStallTests: XCTestCase {
    func testAStoreWhoseAddNeverReturnsCannotHoldThePurchasePastItsTimeout() async throws {
        let world = World()
        let stalling = StallingQueue(base: world.store, stalls: [.add])
        let engine = try await world.engine(world.configuration(queue: stalling, storeTimeout: 60))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await stalling.waitUntilStalled(.add)
        world.clock.advance(by: 60)
        let result = try await call.value
        guard case .pending(let order, .storeTimeout) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(order.status, .purchasing)

        // The store answers at last: the payment is delivered, once, to alice.
        await stalling.release(.add)
        await engine.waitUntilIdle()
        let credits = await world.server.credits(forUser: "alice")
        XCTAssertEqual(credits.count, 1)
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .completed)
    }

    func testAStoreThatNeverSaysWhetherPaymentsAreAllowedEndsTheCallWithATimeout() async throws {
        let world = World()
        let stalling = StallingQueue(base: world.store, stalls: [.canMakePayments])
        let engine = try await world.engine(world.configuration(queue: stalling, storeTimeout: 60))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await stalling.waitUntilStalled(.canMakePayments)
        world.clock.advance(by: 60)
        do {
            _ = try await call.value
            XCTFail("expected a timeout")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .timeout)
        }
        let transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty, "nothing was charged")
        await stalling.release(.canMakePayments)
    }

    func testAFinishThatNeverReturnsDoesNotHoldTheOrder() async throws {
        let world = World()
        let stalling = StallingQueue(base: world.store, stalls: [.finish])
        let engine = try await world.engine(world.configuration(queue: stalling, storeTimeout: 60))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await stalling.waitUntilStalled(.finish)
        world.clock.advance(by: 60)
        // The call's own store timeout and the finish's run out together:
        // either answer is right, as long as the order is credited.
        let result = try await call.value
        XCTAssertEqual(result.order.status, .delivered, "credited; the finish is retried later")
        let credits = await world.server.credits(forUser: "alice")
        XCTAssertEqual(credits.count, 1)
        await stalling.release(.finish)
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

        let stalling = StallingQueue(base: world.store, stalls: [.attach])
        var configuration = world.configuration(queue: stalling)
        configuration.limits.launchTimeout = 5
        let second = try PurchaseEngine(configuration: configuration)
        await second.setCurrentUser("alice")
        let launch = Task { try await second.start() }
        await stalling.waitUntilStalled(.attach)
        world.clock.advance(by: 5)
        _ = try await launch.value // launch completed without the store

        await stalling.release(.attach)
        await second.waitUntilIdle()
        let credits = await world.server.credits(forUser: "alice")
        XCTAssertEqual(credits.count, 1, "the replay is handled when the store answers")
        let left = await world.store.unfinishedTransactions()
        XCTAssertTrue(left.isEmpty)
    }

    func testACancelledCallReturnsAtOnceAndItsOrderCarriesOn() async throws {
        let world = World()
        let stalling = StallingQueue(base: world.store, stalls: [.add])
        let second = try await world.engine(world.configuration(queue: stalling)) // no store timeout
        let pending = Task { try await second.purchase(productID: Catalog.coins, user: "bob") }
        await stalling.waitUntilStalled(.add)
        pending.cancel()
        do {
            _ = try await pending.value
            XCTFail("a cancelled call must not wait for the store")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .cancelled)
            XCTAssertFalse(error.advice.isEmpty)
        }
        await stalling.release(.add)
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
        XCTAssertEqual(orders.map(\.status), [.failed])
    }

    func testAnUnansweredPaymentExpiresAndALatePaymentStillReachesItsUser() async throws {
        let world = World()
        let stalling = StallingQueue(base: world.store, stalls: [.add])
        var configuration = world.configuration(queue: stalling, storeTimeout: 60)
        configuration.limits.paymentExpiry = 3600
        let engine = try await world.engine(configuration)
        await engine.setCurrentUser("bob")
        let call = Task { try await engine.purchase(productID: Catalog.season, user: "alice") }
        await stalling.waitUntilStalled(.add)
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
        await stalling.release(.add)
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
        let verifier = ConcurrencyCountingVerifier(base: world.server)
        await world.server.failNext(6, with: .serverError(statusCode: 503))
        var configuration = world.configuration(verifier: verifier)
        configuration.limits.maximumConcurrentRecoveries = 2
        let engine = try await world.engine(configuration)
        for user in (1...6).map({ "user-\($0)" }) {
            _ = try await engine.purchase(productID: Catalog.coins, user: user)
        }
        verifier.reset()
        await engine.retryPendingDeliveries()
        XCTAssertEqual(verifier.calls, 6)
        XCTAssertLessThanOrEqual(verifier.maximumInFlight, 2)
        let credited = await world.server.allCredits
        XCTAssertEqual(credited.count, 6)
    }
}

/// A store that stops answering some calls until the test releases them.
actor StallingQueue: PaymentQueue {
    enum Call: Hashable, Sendable { case add, attach, canMakePayments, finish }

    private let base: SimulatedPaymentQueue
    private var stalls: Set<Call>
    private var stalled: [Call: [CheckedContinuation<Void, Never>]] = [:]
    private var stallWatchers: [Call: [CheckedContinuation<Void, Never>]] = [:]

    init(base: SimulatedPaymentQueue, stalls: Set<Call>) {
        self.base = base
        self.stalls = stalls
    }

    /// Returns once a call of this kind is stalled.
    func waitUntilStalled(_ call: Call) async {
        if stalled[call]?.isEmpty == false { return }
        await withCheckedContinuation { stallWatchers[call, default: []].append($0) }
    }

    /// Lets the stalled calls of this kind, and every later one, through.
    func release(_ call: Call) {
        stalls.remove(call)
        for waiter in stalled.removeValue(forKey: call) ?? [] { waiter.resume() }
    }

    private func gate(_ call: Call) async {
        guard stalls.contains(call) else { return }
        await withCheckedContinuation { continuation in
            stalled[call, default: []].append(continuation)
            for watcher in stallWatchers.removeValue(forKey: call) ?? [] { watcher.resume() }
        }
    }

    func products(for identifiers: Set<String>) async throws -> ProductsResponse { try await base.products(for: identifiers) }
    func canMakePayments() async -> Bool {
        await gate(.canMakePayments)
        return await base.canMakePayments()
    }
    func add(_ payment: Payment) async throws {
        await gate(.add)
        try await base.add(payment)
    }
    func finish(transactionID: String) async throws {
        await gate(.finish)
        try await base.finish(transactionID: transactionID)
    }
    func restoreCompletedTransactions() async throws -> [StoreTransaction] { try await base.restoreCompletedTransactions() }
    func revokedTransactions() async throws -> [StoreTransaction] { try await base.revokedTransactions() }
    func attach(_ observer: any PaymentQueueObserver) async {
        await gate(.attach)
        await base.attach(observer)
    }
    func renewalState(forOriginalTransactionID id: String) async -> SubscriptionRenewalState? {
        await base.renewalState(forOriginalTransactionID: id)
    }
}

/// A verifier that records how many of its calls overlap.
final class ConcurrencyCountingVerifier: ReceiptVerifier {
    private let base: any ReceiptVerifier
    private let state = Locked((inFlight: 0, maximum: 0, calls: 0))

    init(base: any ReceiptVerifier) { self.base = base }

    var maximumInFlight: Int { state.withLock { $0.maximum } }
    var calls: Int { state.withLock { $0.calls } }

    func reset() { state.withLock { $0 = (0, 0, 0) } }

    func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
        state.withLock {
            $0.inFlight += 1
            $0.calls += 1
            $0.maximum = max($0.maximum, $0.inFlight)
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        // Give every other delivery that was started a chance to overlap this one.
        for _ in 0..<20 { await Task.yield() }
        return try await base.verify(request)
    }
}
