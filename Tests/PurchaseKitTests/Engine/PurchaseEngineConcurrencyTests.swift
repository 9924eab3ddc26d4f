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
        let probe = InFlightProbe(base: world.store)
        let engine = try await world.engine(world.configuration(queue: probe))
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
        let maxPerKey = await probe.maximumInFlightPerKey
        XCTAssertEqual(maxPerKey, 1, "never two payments in flight for one user and product")
        let maxTotal = await probe.maximumInFlight
        XCTAssertLessThanOrEqual(maxTotal, 4, "the concurrency limit holds")
        // Every payment that reached the store was answered: delivered, or already owned.
        let answered = outcomes.filter { $0.hasPrefix("ok:") || $0.hasSuffix("alreadyOwned") }.count
        let adds = await probe.addCount
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

/// Counts payments handed to the store at the same time (while `add` runs),
/// per (user, product) and in all.
actor InFlightProbe: PaymentQueue {
    let base: SimulatedPaymentQueue
    private var inFlight: [String: Int] = [:]
    private var total = 0
    private(set) var maximumInFlightPerKey = 0
    private(set) var maximumInFlight = 0
    private(set) var addCount = 0

    init(base: SimulatedPaymentQueue) { self.base = base }

    func products(for identifiers: Set<String>) async throws -> ProductsResponse { try await base.products(for: identifiers) }
    func canMakePayments() async -> Bool { await base.canMakePayments() }
    func finish(transactionID: String) async throws { try await base.finish(transactionID: transactionID) }
    func restoreCompletedTransactions() async throws -> [StoreTransaction] { try await base.restoreCompletedTransactions() }
    func revokedTransactions() async throws -> [StoreTransaction] { try await base.revokedTransactions() }
    func attach(_ observer: any PaymentQueueObserver) async { await base.attach(observer) }

    func add(_ payment: Payment) async throws {
        let key = "\(payment.userID)|\(payment.productID)"
        inFlight[key, default: 0] += 1
        total += 1
        addCount += 1
        maximumInFlightPerKey = max(maximumInFlightPerKey, inFlight[key] ?? 0)
        maximumInFlight = max(maximumInFlight, total)
        defer {
            inFlight[key, default: 1] -= 1
            total -= 1
        }
        try await base.add(payment)
    }
}

final class RecoveryConcurrencyTests: XCTestCase {
    func testLaunchRecoveryAsksTheVerifierAFewOrdersAtATime() async throws {
        let world = World()
        let first = try await world.engine()
        await world.server.setFaultRates(ServerFaultRates(serverError: 1))
        for index in 0..<12 {
            _ = try await first.purchase(productID: Catalog.coins, user: "user-\(index)")
        }
        await world.server.setFaultRates(.none)
        await world.server.setLatency(1)

        let probe = ConcurrencyProbe(base: world.server)
        var configuration = world.configuration(verifier: probe)
        configuration.limits.maximumConcurrentRecoveries = 3
        let relaunched = try PurchaseEngine(configuration: configuration)
        try await relaunched.start()
        for _ in 0..<4 { // 12 owed deliveries, 3 at a time, each taking a second of the clock
            // The three server calls in flight sleep until a second from now.
            await world.clock.waitForSleepers(count: 3, until: world.clock.now.addingTimeInterval(1))
            world.clock.advance(by: 1)
        }
        await relaunched.waitUntilIdle()
        let maximum = await probe.maximum
        XCTAssertEqual(maximum, 3)
        let credits = await world.creditCounts()
        XCTAssertEqual(credits.count, 12)
        XCTAssertTrue(credits.values.allSatisfy { $0 == 1 })
    }
}

/// Counts verifier calls in flight.
actor ConcurrencyProbe: ReceiptVerifier {
    let base: any ReceiptVerifier
    private var running = 0
    private(set) var maximum = 0

    init(base: any ReceiptVerifier) { self.base = base }

    func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
        running += 1
        maximum = max(maximum, running)
        defer { running -= 1 }
        return try await base.verify(request)
    }
}
