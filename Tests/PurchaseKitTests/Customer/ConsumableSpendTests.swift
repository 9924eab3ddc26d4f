import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Spending consumable units through the engine, on the simulated store:
/// idempotent by spend id, never below zero, one at a time per user.
final class ConsumableSpendTests: XCTestCase {
    /// A started engine on `world` where alice bought `units` coins.
    private func engineWithCoins(_ world: World, units: Int, store: (any OrderStore)? = nil) async throws -> PurchaseEngine {
        let engine = try await world.engine(world.configuration(store: store))
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: units)
        guard case .success = result else {
            XCTFail("the purchase did not succeed: \(result)")
            throw CancellationError()
        }
        await engine.waitUntilIdle()
        return engine
    }

    func testASpendLowersTheBalanceAndARetryWithItsIDSpendsNothingMore() async throws {
        let world = World()
        let engine = try await engineWithCoins(world, units: 5)
        let first = try await engine.spend(3, of: Catalog.coins, user: "alice", spendID: "sword")
        XCTAssertEqual(first.balanceAfter, 2)
        XCTAssertEqual(first.amount, 3)
        world.clock.advance(by: 60)
        let retry = try await engine.spend(3, of: Catalog.coins, user: "alice", spendID: "sword")
        XCTAssertEqual(retry, first, "a retry returns the recorded spend, date and balance included")
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 2)
        let spends = try await engine.spends(user: "alice")
        XCTAssertEqual(spends.map(\.id), ["sword"])
    }

    func testTheBalanceNeverGoesBelowZero() async throws {
        let world = World()
        let engine = try await engineWithCoins(world, units: 5)
        do {
            try await engine.spend(6, of: Catalog.coins, user: "alice", spendID: "too-much")
            XCTFail("a spend above the balance succeeded")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .insufficientBalance)
            XCTAssertTrue(error.message.contains("holds 5 units"), error.message)
        }
        let emptied = try await engine.spend(5, of: Catalog.coins, user: "alice", spendID: "all")
        XCTAssertEqual(emptied.balanceAfter, 0)
        await assertThrows(.insufficientBalance) { try await engine.spend(1, of: Catalog.coins, user: "alice", spendID: "one-more") }
        // A product never bought has nothing to spend; another user has nothing of alice's.
        await assertThrows(.insufficientBalance) { try await engine.spend(1, of: Catalog.coins, user: "bob", spendID: "x") }
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 0)
        let spends = try await engine.spends(user: "alice")
        XCTAssertEqual(spends.map(\.id), ["all"], "refused spends are not recorded")
    }

    func testASpendIDReusedForAnotherSpendIsRefused() async throws {
        let world = World()
        let engine = try await engineWithCoins(world, units: 5)
        try await engine.spend(2, of: Catalog.coins, user: "alice", spendID: "potion")
        await assertThrows(.spendIDConflict) { try await engine.spend(3, of: Catalog.coins, user: "alice", spendID: "potion") }
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 3)
        // The same id for another user is another spend.
        await assertThrows(.insufficientBalance) { try await engine.spend(2, of: Catalog.coins, user: "bob", spendID: "potion") }
    }

    func testAnAmountBelowOneAnEmptySpendIDOrAnEmptyUserIsRefused() async throws {
        let world = World()
        let engine = try await engineWithCoins(world, units: 5)
        await assertThrows(.invalidQuantity) { try await engine.spend(0, of: Catalog.coins, user: "alice", spendID: "zero") }
        await assertThrows(.invalidQuantity) { try await engine.spend(-1, of: Catalog.coins, user: "alice", spendID: "negative") }
        await assertThrows(.invalidQuantity) { try await engine.spend(1, of: Catalog.coins, user: "alice", spendID: "") }
        // No user is a mistake of the caller, not an empty balance.
        await assertThrows(.invalidConfiguration) { try await engine.spend(1, of: Catalog.coins, user: "", spendID: "nobody") }
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 5)
    }

    func testConcurrentSpendsThatTogetherExceedTheBalanceSucceedOnlyAsFarAsItGoes() async throws {
        for round in 0..<5 {
            let world = World(seed: UInt64(round + 1))
            let engine = try await engineWithCoins(world, units: 5)
            // Two spends of 3 from 5: exactly one succeeds.
            let outcomes = await withTaskGroup(of: PurchaseKitError.Code?.self) { group in
                for id in ["left", "right"] {
                    group.addTask {
                        do {
                            _ = try await engine.spend(3, of: Catalog.coins, user: "alice", spendID: id)
                            return nil
                        } catch {
                            return (error as? PurchaseKitError)?.code
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            XCTAssertEqual(outcomes.filter { $0 == nil }.count, 1, "round \(round): \(outcomes)")
            XCTAssertEqual(outcomes.filter { $0 == .insufficientBalance }.count, 1, "round \(round): \(outcomes)")
            let balance = try await engine.consumableBalance(user: "alice")
            XCTAssertEqual(balance[Catalog.coins], 2, "round \(round)")
        }
    }

    /// An order store that suspends while it reads (a database on a thread
    /// of its own) lets the engine take another call meanwhile: the spends of
    /// one user must still run one at a time, each seeing the one before it.
    func testConcurrentSpendsOnAStoreThatSuspendsWhileItReadsNeverSpendAUnitTwice() async throws {
        for round in 0..<5 {
            let world = World(seed: UInt64(round + 1))
            let suspending = InterceptingOrderStore(wrapping: world.orders) { call in
                if call.name == .spends || call.name == .orders { await Task.yield() }
                return .proceed
            }
            let engine = try await engineWithCoins(world, units: 5, store: suspending)
            let successes = await withTaskGroup(of: Int.self) { group in
                for id in ["left", "right"] {
                    group.addTask { (try? await engine.spend(3, of: Catalog.coins, user: "alice", spendID: id)) == nil ? 0 : 1 }
                }
                return await group.reduce(0, +)
            }
            XCTAssertEqual(successes, 1, "round \(round): 5 units pay for one spend of 3")
            let spends = try await engine.spends(user: "alice")
            XCTAssertEqual(spends.map(\.balanceAfter), [2], "round \(round)")
            let balance = try await engine.consumableBalance(user: "alice")
            XCTAssertEqual(balance[Catalog.coins], 2, "round \(round)")
        }
    }

    func testManyConcurrentSpendsOfOneUnitSpendExactlyTheBalance() async throws {
        let world = World()
        let engine = try await engineWithCoins(world, units: 7)
        let successes = await withTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask { (try? await engine.spend(1, of: Catalog.coins, user: "alice", spendID: "unit-\(index)")) == nil ? 0 : 1 }
            }
            return await group.reduce(0, +)
        }
        XCTAssertEqual(successes, 7)
        let spends = try await engine.spends(user: "alice")
        XCTAssertEqual(spends.count, 7)
        XCTAssertEqual(Set(spends.map(\.balanceAfter)), Set(0..<7), "each spend saw the balance the one before it left")
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 0)
    }

    func testARefundAfterASpendLeavesTheBalanceAtZeroNotBelow() async throws {
        let world = World()
        let engine = try await engineWithCoins(world, units: 5)
        try await engine.spend(4, of: Catalog.coins, user: "alice", spendID: "spent")
        let transactions = await world.store.allTransactions()
        let transaction = try XCTUnwrap(transactions.first)
        try await world.store.refund(transactionID: transaction.id)
        await engine.waitUntilIdle()
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 0)
        await assertThrows(.insufficientBalance) { try await engine.spend(1, of: Catalog.coins, user: "alice", spendID: "after-refund") }
        // The 4 units spent were refunded: a later purchase makes up for them first.
        _ = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: 5)
        await engine.waitUntilIdle()
        let after = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(after[Catalog.coins], 1)
    }

    func testAStoreWriteFailureSpendsNothingAndTheRetrySucceeds() async throws {
        let world = World()
        // Spend writes fail while `fails` is set.
        let fails = Locked(false)
        let failing = InterceptingOrderStore(wrapping: world.orders) { call in
            call.name == .recordSpend && fails.withLock({ $0 }) ? .fail(POSIXError(.EIO)) : .proceed
        }
        let engine = try await engineWithCoins(world, units: 5, store: failing)
        fails.withLock { $0 = true }
        await assertThrows(.persistenceWriteFailed) { try await engine.spend(2, of: Catalog.coins, user: "alice", spendID: "s") }
        var balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 5)
        fails.withLock { $0 = false }
        let spend = try await engine.spend(2, of: Catalog.coins, user: "alice", spendID: "s")
        XCTAssertEqual(spend.balanceAfter, 3)
        balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 3)
    }

    func testAStoreThatDoesNotRecordSpendsRefusesThemAndStillAnswersBalances() async throws {
        let world = World()
        let engine = try await engineWithCoins(world, units: 5, store: NoSpendsStore(base: world.orders))
        await assertThrows(.spendsNotSupported) { try await engine.spend(1, of: Catalog.coins, user: "alice", spendID: "s") }
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 5)
    }

    func testProductsThatFeedOneBalanceAreSpentFromItByItsKey() async throws {
        let bigPack = StoreProduct(id: "com.example.coins.500", type: .consumable, displayName: "500 coins", price: 4)
        let world = World(seed: 0, products: Catalog.products + [bigPack])
        var configuration = world.configuration()
        configuration.policies.consumableCredits = [Catalog.coins: ConsumableCredit(balanceKey: "coins", units: 100),
                                           bigPack.id: ConsumableCredit(balanceKey: "coins", units: 500)]
        let engine = try await world.engine(configuration)
        _ = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: 2)
        _ = try await engine.purchase(productID: bigPack.id, user: "alice")
        await engine.waitUntilIdle()
        var balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, ["coins": 700])

        let spend = try await engine.spend(650, of: "coins", user: "alice", spendID: "castle")
        XCTAssertEqual(spend.balanceAfter, 50)
        XCTAssertEqual(spend.balanceKey, "coins")
        await assertThrows(.insufficientBalance) { try await engine.spend(100, of: "coins", user: "alice", spendID: "moat") }
        // The product id is not a balance of its own any more.
        await assertThrows(.insufficientBalance) { try await engine.spend(1, of: Catalog.coins, user: "alice", spendID: "pack") }
        balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, ["coins": 50])
        let info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.consumableBalances, ["coins": 50])
    }

    func testACreditWithoutUnitsOrKeyIsRefusedAtConfiguration() {
        let world = World()
        for credit in [ConsumableCredit(balanceKey: "coins", units: 0), ConsumableCredit(balanceKey: "", units: 1)] {
            var configuration = world.configuration()
            configuration.policies.consumableCredits = [Catalog.coins: credit]
            XCTAssertThrowsError(try PurchaseEngine(configuration: configuration)) { error in
                XCTAssertEqual((error as? PurchaseKitError)?.code, .invalidConfiguration)
                XCTAssertEqual((error as? PurchaseKitError)?.keyPath, "policies.consumableCredits[\(Catalog.coins)]")
            }
        }
    }
}

/// A custom order store written before spends and the lookup by original
/// transaction id existed: it relies on the defaults. (Hand-written on
/// purpose: an `InterceptingOrderStore` forwards every requirement, and this
/// store must lack them.)
struct NoSpendsStore: OrderStore {
    let base: InMemoryOrderStore

    func save(_ order: Order) async throws { await base.save(order) }
    func loadOpenOrders() async throws -> OrderLoadReport { await base.loadOpenOrders() }
    func openOrders(forUser userID: String) async throws -> [Order] { await base.openOrders(forUser: userID) }
    func orders(forUser userID: String) async throws -> [Order] { await base.orders(forUser: userID) }
    func order(id: String) async throws -> Order? { await base.order(id: id) }
    func order(transactionID: String) async throws -> Order? { await base.order(transactionID: transactionID) }
    func order(token: String) async throws -> Order? { await base.order(token: token) }
    func archive(orderID: String) async throws { try await base.archive(orderID: orderID) }
    func remove(orderID: String) async throws { await base.remove(orderID: orderID) }
}
