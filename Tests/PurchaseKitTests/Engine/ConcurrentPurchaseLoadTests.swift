import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// A thousand purchase calls at once, by ten users of one store account, over
/// the sample catalog: every transaction must be credited once, to the user
/// who paid for it, and every call must be answered. The interleaving is left
/// to the scheduler, so each run tries a different one; the regression tests
/// in `PurchaseEngineAttributionTests` script the ones that once went wrong.
final class ConcurrentPurchaseLoadTests: XCTestCase {
    func testAThousandConcurrentPurchasesOnOneAccountCreditEveryTransactionToItsBuyerOnce() async throws {
        for seed: UInt64 in 1...2 {
            let load = try await PurchaseLoad(seed: seed)
            let calls = PurchaseLoad.calls(count: 1000)
            let outcomes = await load.run(calls)
            try await load.settle()
            try await load.check(calls: calls, outcomes: outcomes, seed: seed)
        }
    }
}

/// One purchase call of the load.
struct LoadCall: Sendable {
    let index: Int
    let user: String
    let productID: String
}

/// How one call ended.
enum LoadOutcome: Sendable {
    case success(Order)
    case alreadyOwned(orderID: String?)
    /// A downgrade (or crossgrade to another duration) within a subscription
    /// group: it waits for the current period's renewal date.
    case changeScheduled(Order)
    case other(String)
}

/// The load: the sample catalog on one simulated store account, the
/// simulated server, and an engine with the reported configuration (the
/// library's defaults, duplicates waiting, 64 purchases at once).
struct PurchaseLoad {
    static let users = (0..<10).map { "user-\($0)" }
    static let storeTimeout: TimeInterval = 600

    let world: World
    let auditor: AnswerAuditor
    let engine: PurchaseEngine

    init(seed: UInt64) async throws {
        world = World(seed: seed, storeKit: try StoreKitConfiguration.sample(), engineDefaults: .library)
        auditor = AnswerAuditor(base: world.store, orders: world.orders, clock: world.clock, storeTimeout: Self.storeTimeout)
        var configuration = world.configuration(queue: auditor.queue, duplicates: .wait, storeTimeout: Self.storeTimeout)
        configuration.limits.maximumConcurrentPurchases = 64
        configuration.jitterSeed = seed
        engine = try await world.engine(configuration)
    }

    /// `count` calls over every user and every product of the catalog, interleaved.
    static func calls(count: Int) -> [LoadCall] {
        let productIDs = (try? StoreKitConfiguration.sample().products.map(\.id).sorted()) ?? []
        return (0..<count).map { index in
            LoadCall(index: index, user: users[index % users.count],
                     productID: productIDs[(index / users.count) % productIDs.count])
        }
    }

    /// Starts every call at once and collects how each ended.
    func run(_ calls: [LoadCall]) async -> [Int: LoadOutcome] {
        let engine = self.engine
        return await withTaskGroup(of: (Int, LoadOutcome).self, returning: [Int: LoadOutcome].self) { group in
            for call in calls {
                group.addTask {
                    do {
                        switch try await engine.purchase(productID: call.productID, user: call.user) {
                        case .success(let order): return (call.index, .success(order))
                        case .pending(let order, .subscriptionChangeScheduled): return (call.index, .changeScheduled(order))
                        case let other: return (call.index, .other("\(other)"))
                        }
                    } catch let error as PurchaseKitError where error.storeReason == .alreadyOwned {
                        return (call.index, .alreadyOwned(orderID: error.orderID))
                    } catch {
                        return (call.index, .other("\(error)"))
                    }
                }
            }
            var outcomes: [Int: LoadOutcome] = [:]
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }

    /// Lets the engine finish everything it started, running any retry that
    /// gets scheduled (none is expected: the server does not fail).
    func settle() async throws {
        let clock = world.clock
        await engine.waitUntilIdle()
        var rounds = 0
        while let next = await engine.scheduledRetries.values.min() {
            rounds += 1
            guard rounds <= 50 else {
                XCTFail("retries keep being scheduled")
                return
            }
            clock.advance(to: next)
            await engine.waitUntilIdle()
        }
    }

    /// The promises, checked against the store's records and the server's ledger.
    func check(calls: [LoadCall], outcomes: [Int: LoadOutcome], seed: UInt64,
               file: StaticString = #filePath, line: UInt = #line) async throws {
        let run = "seed \(seed)"
        XCTAssertEqual(outcomes.count, calls.count, "\(run): every call returned", file: file, line: line)
        let stranded = auditor.stranded
        XCTAssertEqual(stranded, [], "\(run): payments the store answered but whose order kept waiting", file: file, line: line)

        // Ledger side: each of the account's transactions is credited exactly
        // once, to the user whose payment produced it, and nothing else is.
        let (store, server, products) = (world.store, world.server, world.products)
        let transactions = await store.allTransactions()
        let ledger = await server.allCredits
        var buyers: [String: String] = [:]
        for transaction in transactions {
            let recorded = await store.buyer(ofTransactionID: transaction.id)
            let buyer = try XCTUnwrap(recorded, file: file, line: line)
            buyers[transaction.id] = buyer
            let credits = ledger.filter { $0.transactionID == transaction.id }
            XCTAssertEqual(credits.map(\.userID), [buyer],
                           "\(run): transaction \(transaction.id) paid by \(buyer)", file: file, line: line)
        }
        XCTAssertEqual(ledger.count, transactions.count, "\(run): no credit without a transaction", file: file, line: line)

        // Call side: a success carries a transaction its own user paid for and
        // was credited with; "already owned" credited nothing to that order.
        let types = Dictionary(products.map { ($0.id, $0.type) }, uniquingKeysWith: { first, _ in first })
        var successes: [String: Int] = [:]
        for call in calls {
            switch outcomes[call.index] {
            case .success(let order)?:
                successes[call.productID, default: 0] += 1
                XCTAssertEqual(order.userID, call.user, "\(run): call \(call.index)", file: file, line: line)
                let transactionID = try XCTUnwrap(order.transactionID, file: file, line: line)
                XCTAssertEqual(buyers[transactionID], call.user,
                               "\(run): call \(call.index) by \(call.user) got transaction \(transactionID)", file: file, line: line)
                XCTAssertEqual(ledger.filter { $0.orderID == order.id }.map(\.userID), [call.user],
                               "\(run): call \(call.index)", file: file, line: line)
            case .alreadyOwned(let orderID)?:
                XCTAssertNotEqual(types[call.productID], .consumable, "\(run): call \(call.index)", file: file, line: line)
                XCTAssertNotEqual(types[call.productID], .nonRenewable, "\(run): call \(call.index)", file: file, line: line)
                let orderID = try XCTUnwrap(orderID, file: file, line: line)
                XCTAssertTrue(ledger.allSatisfy { $0.orderID != orderID },
                              "\(run): call \(call.index) was told 'already owned' but credited", file: file, line: line)
            case .changeScheduled(let order)?:
                XCTAssertEqual(types[call.productID], .autoRenewable, "\(run): call \(call.index)", file: file, line: line)
                XCTAssertNil(order.transaction, "\(run): call \(call.index)", file: file, line: line)
                XCTAssertTrue(ledger.allSatisfy { $0.orderID != order.id },
                              "\(run): call \(call.index) waits for a renewal date but was credited", file: file, line: line)
            case .other(let text)?:
                XCTFail("\(run): call \(call.index) (\(call.user), \(call.productID)) ended with \(text)", file: file, line: line)
            case nil:
                break
            }
        }
        // Consumables and the season pass are charged every time; the account
        // buys a non-consumable once. In a subscription group it holds one
        // subscription: each product is bought at most once (a lower level
        // after a higher one waits for the renewal date), and the group at least once.
        var groupSuccesses: [String: Int] = [:]
        for product in products {
            let asked = calls.filter { $0.productID == product.id }.count
            let count = successes[product.id, default: 0]
            if product.type == .autoRenewable, let group = product.subscription?.groupID {
                XCTAssertLessThanOrEqual(count, 1, "\(run): \(product.id)", file: file, line: line)
                groupSuccesses[group, default: 0] += count
                continue
            }
            let expected = product.type == .consumable || product.type == .nonRenewable ? asked : 1
            XCTAssertEqual(count, expected, "\(run): \(product.id)", file: file, line: line)
        }
        for (group, count) in groupSuccesses {
            XCTAssertGreaterThanOrEqual(count, 1, "\(run): group \(group)", file: file, line: line)
        }
        XCTAssertEqual(transactions.count, successes.values.reduce(0, +), "\(run): one charge per success", file: file, line: line)
        let unfinished = await store.unfinishedTransactions()
        XCTAssertEqual(unfinished.map(\.id), [], "\(run): every transaction finished", file: file, line: line)
        let diagnostics = await engine.diagnostics
        XCTAssertEqual(diagnostics.invalidTransitionsAttempted, 0, "\(run)", file: file, line: line)
    }
}
