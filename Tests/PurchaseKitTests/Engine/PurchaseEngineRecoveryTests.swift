import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

final class PurchaseEngineRecoveryTests: XCTestCase {
    /// Every point of the purchase path where a process can die: before and
    /// after each durable write, each verifier call and the finish.
    private let crashPoints: [KillSwitch.Point] =
        (1...5).flatMap { [KillSwitch.Point.beforeSave($0), .afterSave($0)] }
        + [.beforeVerify(1), .afterVerify(1), .beforeFinish(1), .afterFinish(1)]

    func testACrashAtEveryPointThenRelaunchDeliversExactlyOnceAndFinishes() async throws {
        for point in crashPoints {
            for product in [Catalog.coins, Catalog.pro] {
                let world = World()
                let kill = KillSwitch(at: point)
                let dying = try await world.engine(world.dyingConfiguration(kill))
                // The dead process's call returns to nobody; the test waits for the kill.
                let call = Task { try? await dying.purchase(productID: product, user: "alice") }
                await kill.waitForDeath(of: dying, during: call)

                let relaunched = try await world.engine()
                await relaunched.waitUntilIdle()

                let transactions = await world.store.allTransactions()
                let unfinished = await world.store.unfinishedTransactions()
                XCTAssertTrue(unfinished.isEmpty, "\(point), \(product): unfinished \(unfinished.map(\.id))")
                for transaction in transactions {
                    let credits = await world.server.credits(forTransactionID: transaction.id)
                    XCTAssertEqual(credits.map(\.userID), ["alice"], "\(point), \(product): credited \(credits.count) times")
                }
                // Either the payment never reached the store, or it was delivered.
                if transactions.isEmpty {
                    XCTAssertLessThanOrEqual(point.saveIndex ?? 0, 2, "\(point): the payment reached the store but no transaction exists")
                } else {
                    let order = try await world.orders.order(transactionID: XCTUnwrap(transactions.first).id)
                    XCTAssertEqual(order?.status, .completed, "\(point), \(product)")
                    XCTAssertEqual(order?.userID, "alice")
                }
                let diagnostics = await relaunched.diagnostics
                XCTAssertEqual(diagnostics.invalidTransitionsAttempted, 0)
            }
        }
    }

    func testACrashDuringRecoveryIsRecoveredByTheNextLaunch() async throws {
        for first in crashPoints {
            for second in [KillSwitch.Point.beforeVerify(1), .afterVerify(1), .beforeFinish(1), .afterFinish(1), .afterSave(1)] {
                let world = World()
                let kill1 = KillSwitch(at: first)
                let engine1 = try await world.engine(world.dyingConfiguration(kill1))
                let call = Task { try? await engine1.purchase(productID: Catalog.coins, user: "alice") }
                await kill1.waitForDeath(of: engine1, during: call)

                let kill2 = KillSwitch(at: second)
                let engine2 = try PurchaseEngine(configuration: world.dyingConfiguration(kill2))
                await kill2.waitUntilDeadOrIdle(engine2)

                let engine3 = try await world.engine()
                await engine3.waitUntilIdle()
                let unfinished = await world.store.unfinishedTransactions()
                XCTAssertTrue(unfinished.isEmpty, "\(first) then \(second)")
                for (transactionID, count) in await world.creditCounts() {
                    XCTAssertEqual(count, 1, "\(first) then \(second): \(transactionID)")
                }
            }
        }
    }

    func testUnfinishedTransactionsOfAKilledProcessAreReplayedAtLaunch() async throws {
        let world = World()
        // The process died before it ever attached: the store holds a paid transaction nobody saw.
        let kill = KillSwitch(at: .beforeSave(3))
        let dying = try await world.engine(world.dyingConfiguration(kill))
        let call = Task { try? await dying.purchase(productID: Catalog.pro, user: "alice") }
        await kill.waitForDeath(of: dying, during: call)
        let unfinishedBefore = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinishedBefore.count, 1)

        let relaunched = try await world.engine()
        let entitlements = try await relaunched.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.pro])
        let unfinishedAfter = await world.store.unfinishedTransactions()
        XCTAssertTrue(unfinishedAfter.isEmpty)
    }

    func testVerifierDownForADayThenUp() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.server.setFaultRates(ServerFaultRates(serverError: 1))
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .pending(let order, .deliveryRetrying) = result else { return XCTFail("\(result)") }
        let transactionID = try XCTUnwrap(order.transactionID)

        // A day of outage: every retry fails, nothing is finished, nothing credited.
        let outageEnd = world.clock.now.addingTimeInterval(24 * 3600)
        while let next = await engine.scheduledRetries[order.id], next <= outageEnd {
            world.clock.advance(to: next)
            await engine.waitUntilIdle()
        }
        var stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .needsAttention, "the retry budget is spent")
        XCTAssertGreaterThan(stored?.verificationAttempts ?? 0, 4)
        var finished = await world.store.isFinished(transactionID: transactionID)
        XCTAssertFalse(finished, "a transient verifier failure never finishes the transaction")
        var credits = await world.server.creditCount(transactionID: transactionID)
        XCTAssertEqual(credits, 0)

        // The server comes back; the slow automatic retry of needsAttention picks it up.
        await world.server.setFaultRates(.none)
        let scheduled = await engine.scheduledRetries[order.id]
        let next = try XCTUnwrap(scheduled)
        world.clock.advance(to: next)
        await engine.waitUntilIdle()
        stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .completed)
        finished = await world.store.isFinished(transactionID: transactionID)
        XCTAssertTrue(finished)
        credits = await world.server.creditCount(transactionID: transactionID)
        XCTAssertEqual(credits, 1)
    }

    /// The time between one failed delivery of the order and its next retry,
    /// `count` times, running each retry when it falls due.
    private func retryGaps(of orderID: String, count: Int, engine: PurchaseEngine, clock: ManualClock) async throws -> [TimeInterval] {
        var gaps: [TimeInterval] = []
        var last = clock.now
        for _ in 0..<count {
            let scheduled = await engine.scheduledRetries[orderID]
            let next = try XCTUnwrap(scheduled)
            gaps.append(next.timeIntervalSince(last))
            last = next
            clock.advance(to: next)
            await engine.waitUntilIdle()
        }
        return gaps
    }

    func testBackoffGrowsAndIsCapped() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.server.setFaultRates(ServerFaultRates(serverError: 1))
        let order = try await engine.purchase(productID: Catalog.coins, user: "alice").order
        let gaps = try await retryGaps(of: order.id, count: 3, engine: engine, clock: world.clock)
        // 10 s, 20 s, 40 s, each within ±10 % jitter.
        for (gap, base) in zip(gaps, [10.0, 20, 40]) {
            XCTAssertEqual(gap, base, accuracy: base * 0.1 + 0.001)
        }
    }

    func testBackoffStopsGrowingAtTheMaximumDelay() async throws {
        let world = World()
        let policy = RetryPolicy(initialDelay: 10, multiplier: 2, maximumDelay: 25, jitter: 0, attemptBudget: 10,
                                 needsAttentionInterval: 3600)
        let engine = try await world.engine(world.configuration(retry: policy))
        await world.server.setFaultRates(ServerFaultRates(serverError: 1))
        let order = try await engine.purchase(productID: Catalog.coins, user: "alice").order
        let gaps = try await retryGaps(of: order.id, count: 5, engine: engine, clock: world.clock)
        XCTAssertEqual(gaps.first, policy.initialDelay)
        XCTAssertLessThan(gaps[0], gaps[1], "the delay grows")
        XCTAssertEqual(gaps.max(), policy.maximumDelay, "and is capped, however many attempts fail")
        XCTAssertEqual(gaps.suffix(2), [policy.maximumDelay, policy.maximumDelay])
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .purchased, "within its budget the order is retried, not flagged")
    }

    func testLostReplyIsRetriedAndCreditedOnce() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.server.scriptNextReplies([.replyLost])
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .pending(let order, .deliveryRetrying) = result else { return XCTFail("\(result)") }
        let transactionID = try XCTUnwrap(order.transactionID)
        var credits = await world.server.creditCount(transactionID: transactionID)
        XCTAssertEqual(credits, 1, "the server applied the request before the reply was lost")
        await engine.retryPendingDeliveries()
        credits = await world.server.creditCount(transactionID: transactionID)
        XCTAssertEqual(credits, 1, "asked twice, credited once")
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .completed)
    }

    func testVerifierTimeoutCountsAsTryLater() async throws {
        let world = World()
        // The verifier holds the call until the end of the test: it never answers in time.
        let held = Gate()
        let verifier = InterceptingVerifier(wrapping: world.server) { _ in
            await held.pass()
            return .proceed
        }
        let engine = try await world.engine(world.configuration(verifier: verifier, verificationTimeout: 5))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        // The engine's call reached the verifier; its 5 s deadline was set before the call.
        await verifier.waitForCalls(1)
        world.clock.advance(by: 5)
        let result = try await call.value
        guard case .pending(let order, .deliveryRetrying) = result else { return XCTFail("\(result)") }
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.lastErrorCode, .verificationUnavailable)
        XCTAssertEqual(stored?.status, .purchased)
        held.open() // let the abandoned verifier call end
    }

    func testRejectedReceiptIsFinishedWithoutDelivery() async throws {
        let world = World()
        let forged = ForgingVerifier()
        let engine = try await world.engine(world.configuration(verifier: forged))
        _ = await rejection { _ = try await engine.purchase(productID: Catalog.pro, user: "alice") }
        let transactions = await world.store.allTransactions()
        let finished = await world.store.isFinished(transactionID: try XCTUnwrap(transactions.first).id)
        XCTAssertTrue(finished, "a rejected transaction is finished at once")
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty)
    }

    func testUserSwitchNeverCreditsAnotherUsersOrder() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setCurrentUser("alice")
        await world.server.setFaultRates(ServerFaultRates(serverError: 1))
        let aliceOrder = try await engine.purchase(productID: Catalog.coins, user: "alice").order

        await engine.setCurrentUser("bob")
        await world.server.setFaultRates(.none)
        let bobTried = await engine.retryPendingDeliveries(user: "bob")
        XCTAssertTrue(bobTried.isEmpty, "bob's login does not touch alice's orders")
        let aliceStill = await world.orders.order(id: aliceOrder.id)
        XCTAssertEqual(aliceStill?.status, .purchased)

        _ = try await engine.purchase(productID: Catalog.coins, user: "bob")
        await engine.retryPendingDeliveries()
        let aliceCredits = await world.server.credits(forUser: "alice")
        let bobCredits = await world.server.credits(forUser: "bob")
        XCTAssertEqual(aliceCredits.count, 1)
        XCTAssertEqual(bobCredits.count, 1)
        let aliceBalance = try await engine.consumableBalance(user: "alice")
        let bobBalance = try await engine.consumableBalance(user: "bob")
        XCTAssertEqual(aliceBalance, [Catalog.coins: 1])
        XCTAssertEqual(bobBalance, [Catalog.coins: 1])
    }

    func testAskToBuyApprovedAfterARelaunch() async throws {
        let world = World()
        var engine: PurchaseEngine? = try await world.engine()
        await world.store.scriptNextPurchase(.askToBuy)
        let order = try await engine!.purchase(productID: Catalog.pro, user: "kid").order
        engine = nil // the app is killed while the parent decides

        let pending = await world.store.pendingAskToBuy()
        try await world.store.approveAskToBuy(id: try XCTUnwrap(pending.first).id) // nobody is listening
        let relaunched = try await world.engine()
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .completed)
        let entitlements = try await relaunched.entitlements(user: "kid")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.pro])
        XCTAssertNil(engine)
    }

    func testAbandonedOrderFromBeforeThePaymentIsFailedAtLaunch() async throws {
        let world = World()
        let kill = KillSwitch(at: .afterSave(1))
        let dying = try await world.engine(world.dyingConfiguration(kill))
        let call = Task { try? await dying.purchase(productID: Catalog.coins, user: "alice") }
        await kill.waitForDeath(of: dying, during: call)
        _ = try await world.engine()
        let archived = await world.orders.archivedOrders()
        XCTAssertEqual(archived.map(\.status), [.failed])
    }
}

/// A verifier that finds every receipt forged.
struct ForgingVerifier: ReceiptVerifier {
    func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict { .invalid(reason: "signature mismatch") }
}

extension KillSwitch.Point {
    var saveIndex: Int? {
        switch self {
        case .beforeSave(let n), .afterSave(let n): return n
        default: return nil
        }
    }
}
