import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// A refund or a renewal that reaches the engine out of order, twice, or
/// while no engine is running; and entitlements once the archive is compacted.
final class AdversarialCallbackTests: XCTestCase {
    private func assertNoDoubleCredit(_ world: World, file: StaticString = #filePath, line: UInt = #line) async {
        let counts = await world.creditCounts()
        for (id, count) in counts where count > 1 { XCTFail("transaction \(id) credited \(count) times", file: file, line: line) }
    }

    func testARefundDeliveredBeforeOrWithThePurchaseItTakesBackLeavesNothingEntitled() async throws {
        for release in [ReleaseOrder.reversed, .asProduced, .shuffled] {
            let world = World()
            let engine = try await world.engine(world.configuration(storeTimeout: 60))
            await world.store.setHoldsUpdates(true)
            await world.store.setDuplicateDeliveries(1)
            let call = Task { try await engine.purchase(productID: Catalog.pro, user: "alice") }
            await world.store.waitForPayments(count: 1)
            await engine.waitUntilIdle()
            let made = await world.store.allTransactions()
            let transaction = try XCTUnwrap(made.first)
            try await world.store.refund(transactionID: transaction.id)
            await world.store.releaseHeldUpdates(order: release)
            _ = try? await call.value
            await engine.waitUntilIdle()

            // Revoked; or rejected when the verifier, asking the store, saw the
            // refund before the engine did. Never delivered either way.
            let orders = await world.orders.orders(forUser: "alice")
            XCTAssertEqual(orders.count, 1)
            XCTAssertTrue(orders.allSatisfy { $0.status == .revoked || $0.status == .rejected }, "\(release): \(orders.map(\.status))")
            if release == .reversed { XCTAssertEqual(orders.map(\.status), [.revoked], "the early refund is applied to its payment") }
            let entitlements = try await engine.entitlements(user: "alice")
            XCTAssertEqual(entitlements, [], "\(release): a refunded purchase grants nothing")
            let unfinished = await world.store.unfinishedTransactions()
            XCTAssertEqual(unfinished.map(\.id), [], "\(release)")
            let diagnostics = await engine.diagnostics
            XCTAssertEqual(diagnostics.invalidTransitionsAttempted, 0, "\(release)")
            await assertNoDoubleCredit(world)
        }
    }

    func testARenewalAndItsRefundReorderedAndDuplicatedEndRevokedAndCreditedOnce() async throws {
        for release in [ReleaseOrder.reversed, .shuffled] {
            let world = World.tiers()
            let engine = try await world.engine()
            guard case .success = try await engine.purchase(productID: Catalog.Tiers.pro, user: "alice") else { return XCTFail() }
            await world.store.setHoldsUpdates(true)
            await world.store.setDuplicateDeliveries(2)
            world.clock.advance(by: 31)
            await world.store.processRenewals()
            let made = await world.store.allTransactions()
            let renewal = try XCTUnwrap(made.last)
            XCTAssertNotEqual(renewal.id, renewal.originalID, "a renewal was made")
            try await world.store.refund(transactionID: renewal.id)
            await world.store.releaseHeldUpdates(order: release)
            await engine.waitUntilIdle()

            let order = try await XCTUnwrapAsync(await world.orders.order(transactionID: renewal.id))
            XCTAssertTrue(order.status == .revoked || order.status == .rejected, "\(release): \(order.status)")
            if release == .reversed { XCTAssertEqual(order.status, .revoked, "the early refund is applied to its renewal") }
            XCTAssertEqual(order.userID, "alice")
            let entitlements = try await engine.entitlements(user: "alice")
            XCTAssertEqual(entitlements, [], "\(release)")
            let status = try await engine.subscriptionStatus(user: "alice")
            XCTAssertTrue([.revoked, .expired].contains(status[Catalog.Tiers.group]), "\(release): \(String(describing: status))")
            if release == .reversed { XCTAssertEqual(status[Catalog.Tiers.group], .revoked) }
            let unfinished = await world.store.unfinishedTransactions()
            XCTAssertEqual(unfinished.map(\.id), [], "\(release)")
            await assertNoDoubleCredit(world)
        }
    }

    func testAnUpgradeRefundedBeforeItsPurchaseReachedTheEngineDoesNotBringBackThePlanItReplaced() async throws {
        for release in [ReleaseOrder.reversed, .asProduced, .shuffled] {
            let world = World.tiers()
            let engine = try await world.engine(world.configuration(storeTimeout: 60))
            guard case .success = try await engine.purchase(productID: Catalog.Tiers.basic, user: "alice") else { return XCTFail() }
            await world.advance(by: 2, engine)
            await world.store.setHoldsUpdates(true)
            let call = Task { try await engine.purchase(productID: Catalog.Tiers.pro, user: "alice") }
            await world.store.waitForPayments(count: 2)
            await engine.waitUntilIdle()
            let made = await world.store.allTransactions()
            let upgrade = try XCTUnwrap(made.last)
            XCTAssertEqual(upgrade.productID, Catalog.Tiers.pro)
            try await world.store.refund(transactionID: upgrade.id)
            await world.store.releaseHeldUpdates(order: release)
            _ = try? await call.value
            await engine.waitUntilIdle()

            // Revoked; or, when the purchase update came first and the
            // verifier, asking the store, saw the refund before the engine
            // took the refund's update, rejected (which update wins that race
            // depends on the machine's load). Never delivered either way.
            let order = try await XCTUnwrapAsync(await world.orders.order(transactionID: upgrade.id))
            XCTAssertTrue(order.status == .revoked || order.status == .rejected, "\(release): \(order.status)")
            let credits = await world.server.creditCount(transactionID: upgrade.id)
            XCTAssertEqual(credits, 0, "\(release)")
            if release == .reversed { XCTAssertEqual(order.status, .revoked, "the early refund is applied to its payment") }
            await assertNoDoubleCredit(world)
            // A rejected upgrade does not end the plan it replaced here (a
            // limit the integration guide names); a revoked one does.
            guard order.status == .revoked else { continue }
            let entitlements = try await engine.entitlements(user: "alice").map(\.productID)
            XCTAssertEqual(entitlements, [], "\(release): the basic plan's rest was refunded at the upgrade, as when the updates come in order")
            let status = try await engine.subscriptionStatus(user: "alice")
            XCTAssertNotEqual(status[Catalog.Tiers.group], .subscribed, "\(release)")
            XCTAssertNotNil(status[Catalog.Tiers.group])
        }
    }

    func testAnUpgradeRefundedWhileItsVerificationRunsDoesNotBringBackThePlanItReplaced() async throws {
        let world = World.tiers(fast: false)
        let engine = try await world.engine()
        guard case .success = try await engine.purchase(productID: Catalog.Tiers.basic, user: "alice") else { return XCTFail() }
        await world.advance(by: 3 * 86_400, engine)
        // The server takes a minute to answer; meanwhile the store refunds the
        // upgrade, and its update is late: the verifier sees the refund first.
        await world.server.setLatency(60)
        let call = Task { try await engine.purchase(productID: Catalog.Tiers.pro, user: "alice") }
        await world.store.waitForPayments(count: 2)
        let made = await world.store.allTransactions()
        let upgrade = try XCTUnwrap(made.last)
        XCTAssertEqual(upgrade.productID, Catalog.Tiers.pro)
        // Until the verification request is at the server (bounded: no real-time wait).
        for _ in 0..<100_000 where await world.server.requestCount(transactionID: upgrade.id) == 0 { await Task.yield() }
        let asked = await world.server.requestCount(transactionID: upgrade.id)
        XCTAssertEqual(asked, 1)
        await world.store.setHoldsUpdates(true)
        try await world.store.refund(transactionID: upgrade.id)
        world.clock.advance(by: 61)
        _ = try? await call.value
        await world.store.releaseHeldUpdates()
        await engine.waitUntilIdle()

        let order = await world.orders.order(transactionID: upgrade.id)
        XCTAssertEqual(order?.status, .revoked, "the refund the verifier saw first ends the upgrade revoked")
        let entitlements = try await engine.entitlements(user: "alice").map(\.productID)
        XCTAssertEqual(entitlements, [], "the store ended the basic plan at the upgrade")
        let status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertNotEqual(status[Catalog.Tiers.group], .subscribed)
        let info = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(info.activeSubscriptions, [:])
        await assertNoDoubleCredit(world)
    }

    func testARefundThatReachesAShutDownEngineIsAppliedByTheNextLaunch() async throws {
        let world = World()
        let first = try await world.engine()
        await world.store.scriptNextPurchase(.success)
        guard case .success(let coins) = try await first.purchase(productID: Catalog.coins, user: "alice", quantity: 3)
        else { return XCTFail() }
        guard case .success(let pro) = try await first.purchase(productID: Catalog.pro, user: "alice") else { return XCTFail() }
        try await first.spend(1, of: Catalog.coins, user: "alice", spendID: "hat")
        await first.shutdown()
        // The shut-down engine is still attached (the app holds it) when the store refunds.
        try await world.store.refund(transactionID: try XCTUnwrap(coins.transaction?.id))
        try await world.store.refund(transactionID: try XCTUnwrap(pro.transaction?.id))

        let second = try await world.engine()
        let stored = await world.orders.orders(forUser: "alice")
        XCTAssertEqual(Set(stored.map(\.status)), [.revoked])
        let info = try await second.customerInfo(user: "alice")
        XCTAssertEqual(info.entitlements, [])
        XCTAssertEqual(info.consumableBalances[Catalog.coins, default: 0], 0)
        await assertNoDoubleCredit(world)
        _ = first
    }

    func testACompactedArchiveStillAnswersEntitlementsBalancesRefundsAndRestores() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("adversarial-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let world = World()
        let journal = { () throws -> JournalOrderStore in
            try JournalOrderStore(directory: directory, configuration: .init(archiveRetention: 86_400, clock: world.clock))
        }
        var store: JournalOrderStore? = try journal()
        var engine: PurchaseEngine? = try await world.engine(world.configuration(store: store))
        guard case .success(let pro)? = try await engine?.purchase(productID: Catalog.pro, user: "alice") else { return XCTFail() }
        guard case .success(let coins)? = try await engine?.purchase(productID: Catalog.coins, user: "alice", quantity: 4)
        else { return XCTFail() }
        try await engine?.spend(1, of: Catalog.coins, user: "alice", spendID: "a")
        await engine?.shutdown()
        engine = nil
        await store?.close()
        store = nil

        world.clock.advance(by: 40 * 86_400)
        let reopened = try journal()
        _ = try await reopened.compactArchive()
        let archived = try await reopened.archivedOrders()
        XCTAssertEqual(archived.count, 2)
        XCTAssertEqual(archived.compactMap { $0.transaction?.receipt }.filter { !$0.isEmpty }, [], "compacted past the retention: the receipts are gone")
        let relaunched = try await world.engine(world.configuration(store: reopened))
        var info = try await relaunched.customerInfo(user: "alice")
        XCTAssertEqual(info.entitlements.map(\.productID), [Catalog.pro])
        XCTAssertEqual(info.consumableBalances[Catalog.coins], 3)

        // A restore after compaction credits nothing again and keeps what there is.
        let restored = try await relaunched.restorePurchases(user: "alice")
        XCTAssertTrue(restored.failures.isEmpty, "\(restored.failures)")
        info = try await relaunched.customerInfo(user: "alice")
        XCTAssertEqual(info.entitlements.map(\.productID), [Catalog.pro])
        XCTAssertEqual(info.consumableBalances[Catalog.coins], 3)

        // A refund of a compacted order still finds it.
        try await world.store.refund(transactionID: try XCTUnwrap(pro.transaction?.id))
        try await world.store.refund(transactionID: try XCTUnwrap(coins.transaction?.id))
        await relaunched.waitUntilIdle()
        info = try await relaunched.customerInfo(user: "alice")
        XCTAssertEqual(info.entitlements, [])
        XCTAssertEqual(info.consumableBalances[Catalog.coins, default: 0], 0)
        let revoked = try await reopened.order(id: pro.id)
        XCTAssertEqual(revoked?.status, .revoked)
        await assertNoDoubleCredit(world)
        await relaunched.shutdown()
        await reopened.close()
    }
}

private func XCTUnwrapAsync<T>(_ value: @autoclosure () async throws -> T?, file: StaticString = #filePath, line: UInt = #line) async throws -> T {
    let resolved = try await value()
    return try XCTUnwrap(resolved, file: file, line: line)
}
