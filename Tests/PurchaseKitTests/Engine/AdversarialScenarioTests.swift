import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Stories an app developer and a hostile world put the engine through, told
/// from outside through the simulated store: each paid transaction ends
/// credited once, to the user who paid, and entitlements follow the money.
final class AdversarialScenarioTests: XCTestCase {
    private typealias W = Catalog.Tiers

    private func entitled(_ engine: PurchaseEngine, _ user: String = "alice") async throws -> [String] {
        try await engine.entitlements(user: user).map(\.productID).sorted()
    }

    private func succeeded(_ result: PurchaseResult, file: StaticString = #filePath, line: UInt = #line) throws -> Order {
        guard case .success(let order) = result else {
            XCTFail("expected a success, got \(result)", file: file, line: line)
            throw CancellationError()
        }
        return order
    }

    /// Every transaction of the account credited at most once, and every paid one finished.
    private func assertCreditedAtMostOnceAndFinished(_ world: World, file: StaticString = #filePath, line: UInt = #line) async {
        let counts = await world.creditCounts()
        for (id, count) in counts where count > 1 { XCTFail("transaction \(id) credited \(count) times", file: file, line: line) }
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished.map(\.id), [], "unfinished transactions", file: file, line: line)
    }

    // MARK: Subscriptions within a group

    func testRefundingThePlanAnUpgradeReplacedLeavesTheNewPlanAndItsRenewals() async throws {
        let world = World.tiers()
        let engine = try await world.engine()
        let basic = try succeeded(try await engine.purchase(productID: W.basic, user: "alice"))
        await world.advance(by: 2, engine)
        let pro = try succeeded(try await engine.purchase(productID: W.pro, user: "alice"))
        // Two months of renewals of the new plan (a day is one clock second).
        await world.advance(by: 62, engine)
        let renewals = try await engine.history(user: "alice", paidOnly: true).filter { $0.productID == W.pro && $0.id != pro.id }
        XCTAssertGreaterThanOrEqual(renewals.count, 1, "the new plan renewed")

        try await world.store.refund(transactionID: try XCTUnwrap(basic.transaction?.id))
        await engine.waitUntilIdle()
        let refunded = await world.orders.order(id: basic.id)
        XCTAssertEqual(refunded?.status, .revoked)
        let products = try await entitled(engine)
        XCTAssertEqual(products, [W.pro], "a refund of the replaced plan takes nothing from the new one")
        let status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status[W.group], .subscribed)
        let credits = await world.server.allCredits
        XCTAssertTrue(credits.allSatisfy { $0.userID == "alice" })
        await assertCreditedAtMostOnceAndFinished(world)
    }

    func testRefundingThePlanADowngradeWaitsOnChargesNothingForTheDowngrade() async throws {
        let world = World.tiers()
        let engine = try await world.engine()
        let pro = try succeeded(try await engine.purchase(productID: W.pro, user: "alice"))
        let downgrade = try await engine.purchase(productID: W.basic, user: "alice")
        guard case .pending(let basicOrder, .subscriptionChangeScheduled) = downgrade else { return XCTFail("\(downgrade)") }

        try await world.store.refund(transactionID: try XCTUnwrap(pro.transaction?.id))
        await engine.waitUntilIdle()
        var products = try await entitled(engine)
        XCTAssertEqual(products, [])

        // Past the date the downgrade would have taken effect.
        await world.advance(by: 40, engine)
        products = try await entitled(engine)
        XCTAssertEqual(products, [], "a refunded subscription does not come back as the downgrade")
        let basicTransactions = await world.store.allTransactions().filter { $0.productID == W.basic }
        XCTAssertEqual(basicTransactions.map(\.id), [], "nothing charged for the downgrade")
        let stored = await world.orders.order(id: basicOrder.id)
        XCTAssertNil(stored?.transaction)
        let status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status[W.group], .revoked)
        await assertCreditedAtMostOnceAndFinished(world)
    }

    func testARefundedLatestRenewalEndsAccessAndANewSubscriptionBringsItBack() async throws {
        let world = World.tiers()
        let engine = try await world.engine()
        _ = try succeeded(try await engine.purchase(productID: W.pro, user: "alice"))
        await world.advance(by: 65, engine)
        let paid = try await engine.history(user: "alice", paidOnly: true)
        let latest = try XCTUnwrap(paid.max { ($0.transaction?.purchaseDate ?? .distantPast) < ($1.transaction?.purchaseDate ?? .distantPast) })
        XCTAssertGreaterThanOrEqual(paid.count, 3, "the purchase and at least two renewals")

        try await world.store.refund(transactionID: try XCTUnwrap(latest.transaction?.id))
        await engine.waitUntilIdle()
        var products = try await entitled(engine)
        XCTAssertEqual(products, [], "the earlier periods ran out; the refunded one grants nothing")
        var info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.subscriptions[W.group]?.status, .revoked)
        XCTAssertEqual(info.entitlements, [])

        await world.advance(by: 1, engine)
        let again = try succeeded(try await engine.purchase(productID: W.pro, user: "alice"))
        products = try await entitled(engine)
        XCTAssertEqual(products, [W.pro])
        info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.subscriptions[W.group]?.status, .subscribed)
        XCTAssertEqual(info.subscriptions[W.group]?.transactionID, again.transaction?.id)
        await assertCreditedAtMostOnceAndFinished(world)
    }

    // MARK: Ask to Buy

    func testTwoRequestsForOneProductTheFirstApprovedAfterItExpiredAreEachCreditedOnceToTheChild() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.scriptNextPurchase(.askToBuy)
        guard case .pending(let first, .awaitingApproval) = try await engine.purchase(productID: Catalog.coins, user: "kid")
        else { return XCTFail() }
        world.clock.advance(by: 49 * 3600)   // past the approval expiry (48 hours)
        await engine.waitUntilIdle()
        let expired = await world.orders.order(id: first.id)
        XCTAssertEqual(expired?.status, .failed)

        await world.store.scriptNextPurchase(.askToBuy)
        guard case .pending(let second, .awaitingApproval) = try await engine.purchase(productID: Catalog.coins, user: "kid")
        else { return XCTFail() }
        let requests = await world.store.pendingAskToBuy()
        XCTAssertEqual(requests.count, 2)
        // The parent answers the newer request first, then the expired one.
        for request in requests.reversed() { try await world.store.approveAskToBuy(id: request.id) }
        await engine.waitUntilIdle()

        let credits = await world.server.allCredits
        XCTAssertEqual(Set(credits.map(\.orderID)), [first.id, second.id])
        XCTAssertEqual(credits.count, 2)
        XCTAssertTrue(credits.allSatisfy { $0.userID == "kid" })
        let balance = try await engine.consumableBalance(user: "kid")
        XCTAssertEqual(balance[Catalog.coins], 2)
        let open = await engine.openOrders()
        XCTAssertEqual(open.map(\.status), [])
        await assertCreditedAtMostOnceAndFinished(world)
    }

    func testAnApprovalAfterTheClockWasSetBackIsDeliveredOnce() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.scriptNextPurchase(.askToBuy)
        guard case .pending(let order, .awaitingApproval) = try await engine.purchase(productID: Catalog.pro, user: "kid")
        else { return XCTFail() }
        world.clock.advance(to: world.clock.now.addingTimeInterval(-3 * 86_400))
        await engine.waitUntilIdle()
        let stillWaiting = await world.orders.order(id: order.id)
        XCTAssertEqual(stillWaiting?.status, .deferred)
        let pending = await world.store.pendingAskToBuy()
        let request = try XCTUnwrap(pending.first)
        try await world.store.approveAskToBuy(id: request.id)
        await engine.waitUntilIdle()
        let products = try await entitled(engine, "kid")
        XCTAssertEqual(products, [Catalog.pro])
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.orderID), [order.id])
        await assertCreditedAtMostOnceAndFinished(world)
    }

    // MARK: Two devices on one store account

    func testAPurchaseLeftOwedOnOneDeviceIsNeverCreditedToTheUserOfAnother() async throws {
        let world = World()
        let phone = try await world.engine()
        await world.server.setFaultRates(ServerFaultRates(serverError: 1))
        guard case .pending(let order, .deliveryRetrying) = try await phone.purchase(productID: Catalog.pro, user: "alice")
        else { return XCTFail() }
        await phone.shutdown()
        await world.server.setFaultRates(.none)

        // The tablet, with its own order store, sees the unfinished transaction first.
        let tabletOrders = InMemoryOrderStore()
        let tablet = try await world.engine(world.configuration(store: tabletOrders))
        await tablet.setCurrentUser("bob")
        await tablet.waitUntilIdle()
        var credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), [], "bob never gets alice's payment")
        let bobs = try await entitled(tablet, "bob")
        XCTAssertEqual(bobs, [])

        // The phone comes back and delivers it to alice, once.
        let relaunched = try await world.engine()
        _ = await relaunched.retryPendingDeliveries()
        await relaunched.waitUntilIdle()
        credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["alice"])
        XCTAssertEqual(credits.map(\.orderID), [order.id])
        let alices = try await entitled(relaunched)
        XCTAssertEqual(alices, [Catalog.pro])
        await assertCreditedAtMostOnceAndFinished(world)
    }

    // MARK: Bad input

    func testNonsenseArgumentsAreTypedErrorsWithMessages() async throws {
        let world = World()
        let engine = try await world.engine()
        _ = try succeeded(try await engine.purchase(productID: Catalog.pro, user: "alice"))

        var error = await assertThrows(.invalidConfiguration) { _ = try await engine.purchase(productID: Catalog.coins, user: "") }
        XCTAssertFalse(error?.message.isEmpty ?? true)
        error = await assertThrows(.invalidProductIdentifiers) { _ = try await engine.purchase(productID: "", user: "alice") }
        XCTAssertFalse(error?.message.isEmpty ?? true)
        await assertThrows(.invalidProductIdentifiers) { _ = try await engine.purchase(productID: "no.such.product", user: "alice") }
        // Quantities are the caller's mistake, refused before any order is made.
        await assertThrows(.invalidConfiguration) { _ = try await engine.purchase(productID: Catalog.season, user: "alice", quantity: .max) }
        await assertThrows(.invalidConfiguration) { _ = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: .min) }
        await assertThrows(.orderNotFound) { _ = try await engine.retry(orderID: "no-such-order") }
        await assertThrows(.orderNotFound) { _ = try await engine.assign(orderID: "no-such-order", toUser: "alice") }
        await assertThrows(.orderNotFound) { _ = try await engine.finish(orderID: "no-such-order") }
        await assertThrows(.insufficientBalance) { try await engine.spend(1, of: Catalog.coins, user: "alice", spendID: "x") }
        await assertThrows(.invalidQuantity) { try await engine.spend(Int.min, of: Catalog.coins, user: "alice", spendID: "x") }

        // None of it charged anything or broke the engine.
        let transactions = await world.store.allTransactions()
        XCTAssertEqual(transactions.count, 1)
        let products = try await entitled(engine)
        XCTAssertEqual(products, [Catalog.pro])
    }
}
