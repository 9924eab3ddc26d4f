import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

final class PurchaseEngineConcurrencyTests: XCTestCase {
    func testTwoConcurrentPurchasesOfTheSameProductMakeOnePayment() async throws {
        let world = World()
        let engine = try await world.engine(world.configuration(storeTimeout: 600))
        // The store sits on the first payment until told to answer.
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(holdsUpdates: true))
        let first = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await world.store.waitForPayments(count: 1) // the first call waits for the store
        do {
            _ = try await engine.purchase(productID: Catalog.coins, user: "alice")
            XCTFail("the second call must not start a payment")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .purchaseInProgress)
        }
        // Another user, or another product, is not blocked.
        let bob = try await engine.purchase(productID: Catalog.coins, user: "bob")
        let other = try await engine.purchase(productID: Catalog.pro, user: "alice")
        XCTAssertEqual(bob.order.status, .completed)
        XCTAssertEqual(other.order.status, .completed)

        await world.store.releaseHeldUpdates()
        let firstResult = try await first.value
        XCTAssertEqual(firstResult.order.status, .completed)
        let transactions = await world.store.allTransactions()
        XCTAssertEqual(transactions.count, 3, "one payment per call that was allowed")
    }

    func testWaitPolicyQueuesTheSecondCallBehindTheFirst() async throws {
        let world = World()
        let engine = try await world.engine(world.configuration(duplicates: .wait))
        async let first = engine.purchase(productID: Catalog.coins, user: "alice")
        async let second = engine.purchase(productID: Catalog.coins, user: "alice")
        let results = try await [first, second]
        XCTAssertEqual(results.map(\.order.status), [.completed, .completed])
        XCTAssertNotEqual(results[0].order.id, results[1].order.id)
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 2])
    }

    func testAThousandConcurrentCallsAreAllAnsweredWithOnePaymentInFlightPerUserAndProduct() async throws {
        let world = World()
        // Counts the payments in flight, per (user, product) and in all: from
        // the store's `add` until the engine takes the answer up (saves the
        // order past `purchasing`) or `add` returns, whichever comes first.
        // The store answers before `add` returns, and the engine may start the
        // next payment once it has taken the answer up.
        let inFlight = InFlightCounter()
        let probe = InterceptingPaymentQueue(wrapping: world.store) { call in
            guard case .add(let payment) = call else { return .proceed }
            inFlight.enter("\(payment.userID)|\(payment.productID)", id: payment.orderToken)
            return .proceedThen { _ in inFlight.leave(id: payment.orderToken) }
        }
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            if case .save(let order) = call, let token = order.token, order.status != .created, order.status != .purchasing {
                inFlight.leave(id: token)
            }
            return .proceed
        }
        let engine = try await world.engine(world.configuration(store: orders, queue: probe))
        let users = ["alice", "bob", "carol"]
        let products = [Catalog.coins, Catalog.pro, Catalog.monthly, Catalog.season]
        let outcomes = await withTaskGroup(of: String.self, returning: [String].self) { group in
            for index in 0..<1000 {
                let user = users[index % users.count]
                let product = products[(index / users.count) % products.count]
                group.addTask {
                    do {
                        let result = try await engine.purchase(productID: product, user: user)
                        return "ok:\(result.order.status.rawValue)"
                    } catch let error as PurchaseKitError {
                        return "error:\(error.code.rawValue)\(error.storeReason.map { ":\($0.rawValue)" } ?? "")"
                    } catch {
                        return "unexpected:\(error)"
                    }
                }
            }
            var all: [String] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        await engine.waitUntilIdle()
        XCTAssertEqual(outcomes.count, 1000, "every call is answered")
        // The store account is shared: once one user owns the non-consumable or
        // the running subscription, the store charges nobody else for it.
        let unexpected = outcomes.filter {
            !$0.hasPrefix("ok:completed") && $0 != "error:purchaseInProgress" && $0 != "error:paymentFailed:alreadyOwned"
        }
        XCTAssertEqual(unexpected, [])
        let maxPerKey = inFlight.maximumPerKey
        XCTAssertEqual(maxPerKey, 1, "never two payments in flight for one user and product")
        let maxTotal = inFlight.maximum
        XCTAssertLessThanOrEqual(maxTotal, 4, "the concurrency limit holds")
        // Every payment that reached the store was answered: delivered, or already owned.
        let answered = outcomes.filter { $0.hasPrefix("ok:") || $0.hasSuffix("alreadyOwned") }.count
        let adds = probe.calls(.add).count
        XCTAssertEqual(answered, adds)
        let charged = await world.store.allTransactions().count
        XCTAssertEqual(charged, outcomes.filter { $0.hasPrefix("ok:") }.count, "one transaction per success")
        let credits = await world.creditCounts()
        XCTAssertTrue(credits.values.allSatisfy { $0 == 1 })
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertTrue(unfinished.isEmpty)
        let diagnostics = await engine.diagnostics
        XCTAssertEqual(diagnostics.invalidTransitionsAttempted, 0)
    }
}

final class RecoveryConcurrencyTests: XCTestCase {
    func testLaunchRecoveryAsksTheVerifierAFewOrdersAtATime() async throws {
        let world = World()
        try await world.leaveOwedDeliveries(12)

        // Every verifier call is counted in flight and held until the test lets
        // the held ones through: while three are held, a fourth must not come.
        let inFlight = InFlightCounter()
        let rounds = Gate()
        let probe = inFlight.verifier(wrapping: world.server) { await rounds.pass() }
        var configuration = world.configuration(verifier: probe)
        configuration.limits.maximumConcurrentDeliveries = 3
        let relaunched = try PurchaseEngine(configuration: configuration)
        try await relaunched.start()
        for round in 1...4 { // 12 owed deliveries, 3 at a time
            await rounds.waitForArrivals(3 * round)
            rounds.releaseHeld()
        }
        await relaunched.waitUntilIdle()
        let maximum = inFlight.maximum
        XCTAssertEqual(maximum, 3)
        let credits = await world.creditCounts()
        XCTAssertEqual(credits.count, 12)
        XCTAssertTrue(credits.values.allSatisfy { $0 == 1 })
    }
}
