import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Refunds, renewals, restore, entitlements and subscription status, events and logs.
final class PurchaseEngineLifecycleTests: XCTestCase {
    private let day: TimeInterval = 86_400

    func testARefundRevokesTheOrderAndRemovesTheEntitlement() async throws {
        let world = World()
        let engine = try await world.engine()
        let events = await EventLog(engine)
        let order = try await engine.purchase(productID: Catalog.pro, user: "alice").order
        var entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.pro])

        try await world.store.refund(transactionID: try XCTUnwrap(order.transactionID), reason: .developerIssue)
        await engine.waitUntilIdle()
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .revoked)
        XCTAssertEqual(stored?.transaction?.revocationReason, .developerIssue)
        entitlements = try await engine.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty)
        // The engine is idle: a revocation it saved sent `.revoked` with the
        // save, and the event is on its way to the log. With none saved, no
        // event is coming, and waiting for one would never end.
        if stored?.status == .revoked {
            await events.waitForEvent { if case .revoked(let revoked) = $0 { return revoked.id == order.id } else { return false } }
        }
        await events.stop()
    }

    func testARefundedConsumableLeavesTheBalance() async throws {
        let world = World()
        let engine = try await world.engine()
        _ = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: 2)
        let refunded = try await engine.purchase(productID: Catalog.coins, user: "alice").order
        var balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 3])
        try await world.store.refund(transactionID: try XCTUnwrap(refunded.transactionID))
        await engine.waitUntilIdle()
        balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 2])
    }

    func testAYearOfMonthlyRenewals() async throws {
        let world = World()
        let engine = try await world.engine()
        let first = try await engine.purchase(productID: Catalog.monthly, user: "alice").order
        let originalID = try XCTUnwrap(first.transaction?.originalID)
        for _ in 1...12 {
            world.clock.advance(by: 31 * day)
            await world.store.processRenewals()
            await engine.waitUntilIdle()
            let status = try await engine.subscriptionStatus(user: "alice")
            XCTAssertEqual(status, [Catalog.group: .subscribed])
        }
        let orders = await world.orders.orders(forUser: "alice")
        XCTAssertEqual(orders.count, 13)
        XCTAssertEqual(orders.filter { $0.source == .renewal }.count, 12)
        XCTAssertTrue(orders.allSatisfy { $0.status == .completed && $0.transaction?.originalID == originalID })
        let credits = await world.creditCounts()
        XCTAssertEqual(credits.count, 13)
        XCTAssertTrue(credits.values.allSatisfy { $0 == 1 })
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertTrue(unfinished.isEmpty)
        let entitlement = try await engine.entitlements(user: "alice").first
        XCTAssertGreaterThan(try XCTUnwrap(entitlement?.expirationDate), world.clock.now)
    }

    func testACancelledSubscriptionExpiresAndTheEntitlementGoes() async throws {
        let world = World()
        let engine = try await world.engine()
        _ = try await engine.purchase(productID: Catalog.monthly, user: "alice")
        try await world.store.cancelSubscription(productID: Catalog.monthly)
        world.clock.advance(by: 40 * day)
        await world.store.processRenewals()
        await engine.waitUntilIdle()
        let status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status, [Catalog.group: .expired])
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty)
    }

    func testGracePeriodKeepsAccessAndBillingRetryDoesNot() async throws {
        let world = World(settings: StoreKitConfiguration.Settings(billingGracePeriodEnabled: true))
        let engine = try await world.engine()
        _ = try await engine.purchase(productID: Catalog.monthly, user: "alice")
        await world.store.simulateBillingIssue(productID: Catalog.monthly)
        world.clock.advance(by: 32 * day) // past the period, inside the 16-day grace period
        await world.store.processRenewals()
        var status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status, [Catalog.group: .inGracePeriod])
        var entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.monthly], "grace keeps access")

        world.clock.advance(by: 20 * day) // grace over: billing retry
        await world.store.processRenewals()
        status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status, [Catalog.group: .inBillingRetry])
        entitlements = try await engine.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty)

        await world.store.resolveBillingIssue(productID: Catalog.monthly)
        await engine.waitUntilIdle()
        status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status, [Catalog.group: .subscribed])
    }

    func testRevokedSubscriptionStatus() async throws {
        let world = World()
        let engine = try await world.engine()
        let order = try await engine.purchase(productID: Catalog.monthly, user: "alice").order
        try await world.store.refund(transactionID: try XCTUnwrap(order.transactionID))
        await engine.waitUntilIdle()
        let status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status, [Catalog.group: .revoked])
    }

    func testRestoreOnANewDeviceBringsBackNonConsumablesAndSubscriptionsOnly() async throws {
        let world = World()
        let firstDevice = try await world.engine()
        _ = try await firstDevice.purchase(productID: Catalog.pro, user: "alice")
        _ = try await firstDevice.purchase(productID: Catalog.monthly, user: "alice")
        _ = try await firstDevice.purchase(productID: Catalog.coins, user: "alice")

        // A new device: same store account and server, empty order store.
        let newDevice = try await world.engine(world.configuration(store: InMemoryOrderStore()))
        let events = await EventLog(newDevice)
        let result = try await newDevice.restorePurchases(user: "alice")
        XCTAssertEqual(result.restoredProductIDs, [Catalog.monthly, Catalog.pro])
        XCTAssertTrue(result.orders.allSatisfy { $0.source == .restore && $0.status == .completed })
        let entitlements = try await newDevice.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.monthly, Catalog.pro])
        let credits = await world.creditCounts()
        XCTAssertTrue(credits.values.allSatisfy { $0 == 1 }, "restoring credits nothing twice")

        // Restoring again changes nothing.
        let again = try await newDevice.restorePurchases(user: "alice")
        XCTAssertEqual(again.restoredProductIDs, result.restoredProductIDs)
        XCTAssertEqual(Set(again.orders.map(\.id)), Set(result.orders.map(\.id)))
        // Other events (the restored orders' moves) may arrive first; wait for the first restore's own.
        await events.waitForEvent { $0 == .restoreFinished(result) }
        await events.stop()
    }

    func testRestoreNeverMovesAPurchaseToAnotherUser() async throws {
        let world = World()
        let engine = try await world.engine()
        _ = try await engine.purchase(productID: Catalog.pro, user: "alice")
        let bob = try await engine.restorePurchases(user: "bob")
        XCTAssertTrue(bob.restoredProductIDs.isEmpty)
        let entitlements = try await engine.entitlements(user: "bob")
        XCTAssertTrue(entitlements.isEmpty)
    }

    func testRestoreFailureIsTypedAndBroadcast() async throws {
        let world = World()
        struct Unreachable: Error {}
        // A store whose restore always fails (an account that cannot be reached).
        let failingRestore = InterceptingPaymentQueue(wrapping: world.store) { call in
            call.name == .restoreCompletedTransactions ? .fail(Unreachable()) : .proceed
        }
        let engine = try await world.engine(world.configuration(queue: failingRestore))
        let events = await EventLog(engine)
        do {
            _ = try await engine.restorePurchases(user: "alice")
            XCTFail("expected restoreFailed")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .restoreFailed)
            XCTAssertNotNil(error.underlying)
        }
        await events.waitForEvent { if case .restoreFailed(let user, _) = $0 { return user == "alice" } else { return false } }
        await events.stop()
    }

    func testNoLogLineCarriesAReceiptOrAToken() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.server.scriptNextReplies([.serverError(statusCode: 503)])
        await world.store.setDuplicateDeliveries(1)
        var orders: [Order] = []
        for product in [Catalog.coins, Catalog.pro, Catalog.monthly] {
            orders.append(try await engine.purchase(productID: product, user: "alice").order)
        }
        await engine.retryPendingDeliveries()
        try await world.store.refund(transactionID: try XCTUnwrap(orders[1].transactionID))
        await engine.waitUntilIdle()
        let lines = world.log.records
        XCTAssertGreaterThan(lines.count, 10)
        var secrets: [String] = []
        for order in orders {
            if let token = order.token { secrets.append(token) }
        }
        for transaction in await world.store.allTransactions() {
            secrets.append(transaction.receipt.base64EncodedString())
            if let text = String(data: transaction.receipt, encoding: .utf8) { secrets.append(text) }
        }
        XCTAssertGreaterThan(secrets.count, 3)
        for line in lines {
            let text = ([line.message] + line.metadata.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
            for secret in secrets where !secret.isEmpty {
                XCTAssertFalse(text.contains(secret), "a log line leaks a secret: \(line.message)")
            }
        }
    }
}
