import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Quantities are never trusted: not the caller's, not the store's, not the
/// stored ones. An impossible quantity is refused before anything is charged,
/// held (never credited) when the store reports it, and never summed.
final class HostileQuantityTests: XCTestCase {
    private func expectQuantityRefused(_ body: () async throws -> Void, file: StaticString = #filePath, line: UInt = #line) async {
        do {
            try await body()
            XCTFail("expected the quantity to be refused", file: file, line: line)
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .invalidConfiguration, error.description, file: file, line: line)
            XCTAssertEqual(error.keyPath, "quantity", file: file, line: line)
        } catch {
            XCTFail("untyped \(error)", file: file, line: line)
        }
    }

    // MARK: The caller's quantity

    func testAPurchaseQuantityTheAppStoreRefusesIsRefusedAndNothingIsCharged() async throws {
        let world = World()
        let engine = try await world.engine()
        for quantity in [11, 1_000, Int.max] {
            await expectQuantityRefused { _ = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: quantity) }
        }
        for product in [Catalog.pro, Catalog.monthly] {
            await expectQuantityRefused { _ = try await engine.purchase(productID: product, user: "alice", quantity: 2) }
        }
        let transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty, "nothing was charged")
        let orders = await world.orders.orders(forUser: "alice")
        XCTAssertTrue(orders.isEmpty, "no order was made")

        // The App Store's own bounds still buy: ten coins, three season passes.
        let coins = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: 10)
        XCTAssertEqual(coins.order.status, .completed)
        let passes = try await engine.purchase(productID: Catalog.season, user: "alice", quantity: 3)
        XCTAssertEqual(passes.order.status, .completed)
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 10])
    }

    func testBuyingIntMaxTwiceNeitherTrapsNorCountsAnything() async throws {
        let world = World()
        let engine = try await world.engine()
        _ = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: 2)
        for _ in 0..<2 {
            await expectQuantityRefused { _ = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: Int.max) }
        }
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 2])
    }

    // MARK: The store's quantity

    func testAStoreTransactionWithAnImpossibleQuantityIsHeldAndNeverCredited() async throws {
        for quantity in [-5, 0, 11, Int.max] {
            let world = World()
            let engine = try await world.engine()
            let events = await EventLog(engine)
            await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(transactionQuantity: quantity))
            let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
            guard case .pending(let order, .deliveryRetrying) = result else { return XCTFail("\(quantity): \(result)") }
            XCTAssertEqual(order.status, .needsAttention, "\(quantity)")
            XCTAssertEqual(order.lastErrorCode, .invalidQuantity, "\(quantity)")
            XCTAssertTrue(order.hint?.contains("\(quantity)") ?? false, order.hint ?? "no hint")
            XCTAssertEqual(order.transaction?.quantity, quantity, "the paid transaction is kept on the order")
            await events.waitForEvent { if case .needsAttention(let held) = $0 { return held.id == order.id }; return false }
            let statuses = await events.statuses(of: order.id)
            XCTAssertEqual(statuses, [.created, .purchasing, .needsAttention], "never purchased, so never delivered")
            let flagged = await events.events.contains { if case .needsAttention(let held) = $0 { return held.id == order.id }; return false }
            XCTAssertTrue(flagged, "the app hears that the order needs attention")

            // Every retry trigger and a relaunch leave it held.
            await engine.retryPendingDeliveries()
            _ = try await engine.retry(orderID: order.id)
            let relaunched = try await world.engine()
            await relaunched.waitUntilIdle()

            let credits = await world.server.allCredits
            XCTAssertTrue(credits.isEmpty, "\(quantity): nothing is credited")
            let requests = await world.server.requestCount(transactionID: try XCTUnwrap(order.transactionID))
            XCTAssertEqual(requests, 0, "\(quantity): the verifier is never even asked")
            let stored = await world.orders.order(id: order.id)
            XCTAssertEqual(stored?.status, .needsAttention)
            let finished = await world.store.isFinished(transactionID: try XCTUnwrap(order.transactionID))
            XCTAssertFalse(finished, "the paid transaction stays with the store for someone to look at")
            let balance = try await relaunched.consumableBalance(user: "alice")
            XCTAssertTrue(balance.isEmpty, "\(quantity): \(balance)")
            await events.stop()
        }
    }

    func testTwoIntMaxTransactionsNeverTrapTheBalance() async throws {
        let world = World()
        let engine = try await world.engine()
        _ = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: 3)
        for _ in 0..<2 {
            await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(transactionQuantity: Int.max))
            _ = try await engine.purchase(productID: Catalog.coins, user: "alice")
        }
        await engine.waitUntilIdle()
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 3])
        let held = await engine.openOrders(user: "alice").filter { $0.lastErrorCode == .invalidQuantity }
        XCTAssertEqual(held.count, 2)
    }

    func testMoreThanOneOfANonConsumableIsHeld() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(transactionQuantity: 2))
        let result = try await engine.purchase(productID: Catalog.pro, user: "alice")
        XCTAssertEqual(result.order.status, .needsAttention)
        XCTAssertEqual(result.order.lastErrorCode, .invalidQuantity)
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty)
        let credits = await world.server.allCredits
        XCTAssertTrue(credits.isEmpty)
    }

    func testAnUnsolicitedTransactionWithAnImpossibleQuantityIsHeld() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setCurrentUser("carol")
        // Another device of the account; the store reports zero units.
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true, transactionQuantity: 0))
        try await world.store.add(Payment(productID: Catalog.coins, orderToken: "token-of-another-device", userID: "someone"))
        await engine.waitUntilIdle()
        let orders = await world.orders.orders(forUser: "carol")
        XCTAssertEqual(orders.map(\.status), [.needsAttention])
        XCTAssertEqual(orders.map(\.lastErrorCode), [.invalidQuantity])
        let credits = await world.server.allCredits
        XCTAssertTrue(credits.isEmpty)
    }

    // MARK: Stored quantities

    func testAbsurdStoredQuantitiesAreLeftOutOfTheBalanceAndLogged() async throws {
        let world = World()
        let t0 = world.clock.now
        func delivered(_ id: String, quantity: Int) -> Order {
            var order = Order(id: id, productID: Catalog.coins, userID: "alice", quantity: quantity,
                              productType: .consumable, status: .completed, createdAt: t0)
            order.transaction = StoreTransaction(id: "t-\(id)", productID: Catalog.coins, purchaseDate: t0, quantity: quantity)
            order.finishedAt = t0
            return order
        }
        // Written by an older build, a damaged disk or an attacker: two Int.max, a negative, a zero, and two real orders.
        for order in [delivered("a", quantity: Int.max), delivered("b", quantity: Int.max), delivered("c", quantity: -5),
                      delivered("d", quantity: 0), delivered("e", quantity: 4), delivered("f", quantity: 10)] {
            await world.orders.save(order)
        }
        let engine = try await world.engine()
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 14])
        let skipped = world.log.records.filter { $0.message.contains("impossible quantity") }.compactMap { $0.metadata["orderID"] }
        XCTAssertEqual(Set(skipped), ["a", "b", "c", "d"])
    }
}
