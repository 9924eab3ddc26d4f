#if !canImport(StoreKit)
import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
@testable import PurchaseKitStoreKit
import StoreKitInterface
import XCTest

/// Refunds take purchases back, announced or found at launch; a restore
/// syncs with the App Store and brings back what StoreKit verified.
final class AppStoreRefundRestoreTests: XCTestCase {
    override func tearDown() {
        ScriptedAppStore.uninstall()
        super.tearDown()
    }

    func testARefundRevokesTheDeliveredOrderAndItsEntitlement() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch()
        guard case .success(let order) = try await engine.purchase(productID: Shop.premium, user: "alice") else {
            return XCTFail("the purchase did not succeed")
        }
        let id = try world.transactionID(of: order)

        world.advance(by: 3600)
        await world.store.refund(id, reason: .developerIssue)
        await engine.waitUntilIdle()

        let revoked = try await world.order(order.id)
        XCTAssertEqual(revoked.status, .revoked)
        XCTAssertEqual(revoked.transaction?.revocationReason, .developerIssue)
        XCTAssertEqual(revoked.transaction?.revocationDate, world.clock.now)
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty)
    }

    func testARefundAnnouncedWhileNoAppRanIsFoundAtTheNextLaunch() async throws {
        let world = AppStoreWorld()
        var orderID = ""
        var id: UInt64 = 0
        do {
            let (engine, _) = try await world.launch()
            guard case .success(let order) = try await engine.purchase(productID: Shop.premium, user: "alice") else {
                return XCTFail("the purchase did not succeed")
            }
            orderID = order.id
            id = try world.transactionID(of: order)
            // The work that answered the call (the delivery) still holds the
            // engine for a moment after the answer; let it end, so that what
            // is checked below is that nothing else keeps the engine (and its
            // update listener) alive.
            await engine.waitUntilIdle()
        }
        // The task of the last timed store call (the finish) may still hold
        // the store adapter for a moment on the other thread after the engine
        // answered; the adapter's end cancels its listener. Wait for that,
        // failing rather than hanging if something keeps the adapter alive.
        let store = world.store
        await returnsPromptly("the end of the app's update listener") { await store.waitUntilUpdateListenersEnd() }
        XCTAssertEqual(world.store.updateListenerCount, 0, "no app is running")
        await world.store.refund(id)

        let (engine, _) = try await world.launch()

        let order = try await world.order(orderID)
        XCTAssertEqual(order.status, .revoked)
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty)
    }

    func testARestoreSyncsThenBringsBackTheAccountsPurchasesOnANewInstall() async throws {
        let world = AppStoreWorld()
        do {
            let (engine, _) = try await world.launch()
            _ = try await engine.purchase(productID: Shop.premium, user: "alice")
            _ = try await engine.purchase(productID: Shop.coins, user: "alice")
            _ = try await engine.purchase(productID: Shop.season, user: "alice")
        }
        world.reinstall()
        let (engine, _) = try await world.launch()
        var entitlements = try await engine.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty, "a new install knows nothing yet")

        let result = try await engine.restorePurchases(user: "alice")

        XCTAssertEqual(world.store.syncCalls, 1)
        XCTAssertEqual(result.restoredProductIDs, [Shop.premium], "neither consumables nor non-renewing subscriptions are restored")
        XCTAssertEqual(result.orders.map(\.source), [.restore])
        entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Shop.premium])
        let credits = await world.server.credits
        XCTAssertEqual(credits.count, 3, "the server credited each transaction once")
    }

    func testARestoreTheAppStoreCannotSyncFailsWithItsReason() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch()
        world.store.failSync(with: StoreKitError.userCancelled)

        do {
            _ = try await engine.restorePurchases(user: "alice")
            XCTFail("the restore did not fail")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .restoreFailed)
        }
    }

    func testOnlyWhatStoreKitVerifiedIsRestoredOrReportedRevoked() async throws {
        let world = AppStoreWorld()
        world.store.addProduct("com.example.theme", type: .nonConsumable, displayName: "Theme", price: 1, displayPrice: "$1")
        let verified = try XCTUnwrap(world.store.addUnfinishedTransaction(productID: Shop.premium, appAccountToken: nil))
        let forged = try XCTUnwrap(world.store.addUnfinishedTransaction(productID: "com.example.theme", appAccountToken: nil,
                                                                           failure: .invalidSignature))
        await world.store.refund(forged)
        let queue = AppStorePaymentQueue(configuration: .init(clock: world.clock))

        let restored = try await queue.restoreCompletedTransactions()
        let revoked = try await queue.revokedTransactions()

        XCTAssertEqual(restored.map(\.id), [String(verified)])
        XCTAssertEqual(restored.first.map { AppStoreReceipt($0.receipt) }, world.store.jws(of: verified).map { .signedTransaction(jws: $0) })
        XCTAssertTrue(revoked.isEmpty, "an unverified revocation takes nothing away")
    }
}
#endif
