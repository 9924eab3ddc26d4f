import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// The order store fails (a full disk) in the middle of a purchase.
final class PurchaseEngineStorageFailureTests: XCTestCase {
    func testAFailedSaveOfThePaidOrderAnswersPendingAndTheNextLaunchDelivers() async throws {
        let world = World()
        let failing = failingSaves(world.orders, statuses: [.purchased])
        let engine = try await world.engine(world.configuration(store: failing))
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .pending(let order, .deliveryRetrying) = result else { return XCTFail("\(result)") }
        XCTAssertNotNil(order.transactionID, "the answer says the user paid")
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished.count, 1, "the store keeps the paid transaction")

        // The disk has room again; the next launch recovers the payment.
        let relaunched = try await world.engine()
        let balance = try await relaunched.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 1])
        let credits = await world.creditCounts()
        XCTAssertEqual(Array(credits.values), [1])
    }

    /// The server is down for the first delivery, and the record of that
    /// attempt (its retry) cannot be saved. The call answered "delivery
    /// retrying", yet nothing was scheduled: the paid order rested
    /// `purchased` until the next launch or retry trigger, however long.
    func testAFailedSaveOfADeliveryRetryStillRetries() async throws {
        let world = World()
        let attemptSaves = Locked(0)
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            struct DiskFull: Error {}
            guard case .save(let order) = call, order.status == .purchased, order.verificationAttempts == 1,
                  attemptSaves.withLock({ $0 += 1; return $0 }) == 1 else { return .proceed }
            return .fail(DiskFull())
        }
        let engine = try await world.engine(world.configuration(store: orders))
        await world.server.failNext(1, with: .serverError(statusCode: 503))
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .pending(_, .deliveryRetrying) = result else { return XCTFail("\(result)") }

        await world.advance(by: 3600, engine)
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 1])
        let credits = await world.creditCounts()
        XCTAssertEqual(Array(credits.values), [1])
    }

    /// The disk stays full and the server down: every delivery attempt's
    /// record fails to save, so the order never counts its attempts. The
    /// retries still back off (by the failed saves in a row), instead of
    /// asking the server every `initialDelay` for as long as the disk is full.
    func testRetriesAfterFailedSavesBackOff() async throws {
        let world = World()
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            struct DiskFull: Error {}
            guard case .save(let order) = call, order.status == .purchased, order.verificationAttempts >= 1 else { return .proceed }
            return .fail(DiskFull())
        }
        let engine = try await world.engine(world.configuration(store: orders))
        await world.server.failNext(10_000, with: .serverError(statusCode: 503))
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .pending(let order, .deliveryRetrying) = result, let transactionID = order.transactionID else {
            return XCTFail("\(result)")
        }
        for _ in 0..<360 { await world.advance(by: 10, engine) } // an hour, ten seconds at a time
        let requests = await world.server.requestCount(transactionID: transactionID)
        // Backing off from 10 s to the policy's 600 s cap: about a dozen in the hour; every 10 s would be 360.
        XCTAssertGreaterThanOrEqual(requests, 6, "the delivery is still retried")
        XCTAssertLessThanOrEqual(requests, 20, "the retries back off")
    }

    /// The disk is full for three delivery attempts in a row, has room for
    /// the fourth, then is full again: the back-off after the next failed
    /// save starts over from the attempts the order saved, instead of going
    /// on from the three failures before the save that succeeded.
    func testTheBackOffAfterFailedSavesStartsOverOnceASaveSucceeds() async throws {
        let world = World()
        let attemptSaves = Locked(0)
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            struct DiskFull: Error {}
            guard case .save(let order) = call, order.status == .purchased, order.verificationAttempts >= 1 else { return .proceed }
            return attemptSaves.withLock({ $0 += 1; return $0 }) == 4 ? .proceed : .fail(DiskFull())
        }
        let retry = RetryPolicy(initialDelay: 10, multiplier: 2, maximumDelay: 10_000, jitter: 0)
        let engine = try await world.engine(world.configuration(store: orders, retry: retry))
        await world.server.failNext(10_000, with: .serverError(statusCode: 503))
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .pending(let order, .deliveryRetrying) = result else { return XCTFail("\(result)") }
        var delays: [TimeInterval] = []
        while true {
            let retries = await engine.scheduledRetries
            let due = try XCTUnwrap(retries[order.id], "the delivery is still retried")
            delays.append((due.timeIntervalSince(world.clock.now) * 1000).rounded() / 1000)
            guard attemptSaves.withLock({ $0 }) < 5 else { break }
            await world.advance(by: due.timeIntervalSince(world.clock.now), engine)
        }
        XCTAssertEqual(Array(delays.prefix(3)), [10, 20, 40], "three failed saves in a row back off")
        let saved = await world.orders.order(id: order.id)
        XCTAssertEqual(saved?.verificationAttempts, 1, "the fourth attempt was saved")
        XCTAssertEqual(delays.last, 20, "one failed save after an attempt saved: the delay after two attempts")
    }

    /// The delivery is saved, then the `completed` record fails: the user was
    /// credited, so the call says so (it once answered "delivery retrying").
    func testAFailedSaveAfterTheDeliveryStillAnswersSuccess() async throws {
        let world = World()
        let failing = failingSaves(world.orders, statuses: [.completed])
        let engine = try await world.engine(world.configuration(store: failing))
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .success(let order) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(order.status, .delivered)
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .delivered, "the delivery is what was saved")
        let credits = await world.creditCounts()
        XCTAssertEqual(Array(credits.values), [1])
    }

    func testAFailedSaveBeforePaymentChargesNothing() async throws {
        let world = World()
        let failing = failingSaves(world.orders, statuses: [.purchasing])
        let engine = try await world.engine(world.configuration(store: failing))
        do {
            _ = try await engine.purchase(productID: Catalog.coins, user: "alice")
            XCTFail("expected a persistence error")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .persistenceWriteFailed)
        }
        let transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty)
    }
}

/// An order store that refuses to save orders in some statuses (a full
/// disk), the first `times` such saves or every one.
func failingSaves(_ base: any OrderStore, statuses: Set<OrderStatus>, times: Int = .max) -> InterceptingOrderStore {
    struct DiskFull: Error {}
    let remaining = Locked(times)
    return InterceptingOrderStore(wrapping: base) { call in
        guard case .save(let order) = call, statuses.contains(order.status) else { return .proceed }
        let fails = remaining.withLock { left -> Bool in
            guard left > 0 else { return false }
            left -= 1
            return true
        }
        return fails ? .fail(DiskFull()) : .proceed
    }
}

extension InterceptingOrderStore {
    /// Returns once `count` orders in `status` have been handed to `save`
    /// (as each arrives, before the hook decides about it).
    func waitForSaves(of status: OrderStatus, count: Int = 1) async {
        await waitForCalls(count) { call in
            if case .save(let order) = call { return order.status == status }
            return false
        }
    }
}
