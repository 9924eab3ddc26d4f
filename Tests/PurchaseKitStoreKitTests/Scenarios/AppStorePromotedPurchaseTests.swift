#if !canImport(StoreKit)
import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
@testable import PurchaseKitStoreKit
import StoreKitInterface
import XCTest

/// A purchase the user starts on the App Store (`PurchaseIntent`) becomes a
/// `storeInitiated` order of the current user.
final class AppStorePromotedPurchaseTests: XCTestCase {
    override func tearDown() {
        ScriptedAppStore.uninstall()
        super.tearDown()
    }

    func testAPromotedPurchaseIsBoughtAndDeliveredAsAStoreInitiatedOrder() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch(user: "alice")

        await world.store.promote(Shop.premium)
        await engine.waitUntilIdle()

        XCTAssertEqual(world.store.purchaseCalls, [PurchaseCall(productID: Shop.premium, appAccountToken: nil, quantity: nil)])
        let orders = await world.orders(of: "alice")
        let order = try XCTUnwrap(orders.first)
        XCTAssertEqual(order.source, .storeInitiated)
        XCTAssertEqual(order.status, .completed)
        XCTAssertTrue(world.store.isFinished(try world.transactionID(of: order)))
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Shop.premium])
    }

    func testAPromotedPurchaseIsNeverTakenForAWaitingOrdersPayment() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch(user: "alice")
        world.store.scriptNextPurchases(.sheetStaysOpen)
        let call = Task { try await engine.purchase(productID: Shop.coins, user: "alice") }
        await world.store.waitForPurchaseCalls(1)

        await world.store.promote(Shop.coins)
        await engine.waitUntilIdle()
        await world.store.closeSheet(with: .pay)
        guard case .success(let waiting) = try await call.value else {
            return XCTFail("the waiting purchase did not succeed")
        }

        let orders = await world.orders(of: "alice")
        XCTAssertEqual(Set(orders.map(\.source)), [.purchase, .storeInitiated])
        XCTAssertEqual(orders.map(\.status), [.completed, .completed])
        XCTAssertEqual(waiting.transaction?.orderToken, waiting.token, "the waiting order got its own payment")
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Shop.coins: 2])
    }

    func testAPromotedPurchaseApprovedLaterIsStillStoreInitiated() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch(user: "alice")
        world.store.scriptNextPurchases(.pending)

        await world.store.promote(Shop.premium)
        var orders = await world.orders(of: "alice")
        XCTAssertTrue(orders.isEmpty, "nothing to deliver while it is pending")
        await world.store.approvePendingPurchase()
        await engine.waitUntilIdle()

        orders = await world.orders(of: "alice")
        XCTAssertEqual(orders.map(\.source), [.storeInitiated])
        XCTAssertEqual(orders.map(\.status), [.completed])
    }

    func testTheAppDecidesWhetherToBuyAPromotedProduct() async throws {
        let world = AppStoreWorld()
        let asked = Locked<[String]>([])
        let (engine, _) = try await world.launch(promotedPurchases: .ask { product in
            asked.withLock { $0.append(product.displayName) }
            return product.type == .consumable
        })

        await world.store.promote(Shop.premium)
        await world.store.promote(Shop.coins)
        await engine.waitUntilIdle()

        XCTAssertEqual(asked.withLock { $0 }, ["Premium", "100 coins"])
        XCTAssertEqual(world.store.purchaseCalls.map(\.productID), [Shop.coins])
        let orders = await world.orders(of: "alice")
        XCTAssertEqual(orders.map(\.productID), [Shop.coins])
    }

    func testWithEngineTheEnginesHandlerDecidesAndBuysWithTheOrdersToken() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch(promotedPurchases: .engine)
        await engine.setPromotedPurchaseHandler { intent in
            intent.productID == Shop.premium ? .accept(user: "bob") : .decline
        }

        await world.store.promote(Shop.premium)
        await world.store.promote(Shop.coins)
        await engine.waitUntilIdle()

        let orders = await world.orders(of: "bob")
        let order = try XCTUnwrap(orders.first)
        XCTAssertEqual(orders.count, 1)
        XCTAssertEqual(order.source, .storeInitiated)
        XCTAssertEqual(order.status, .completed)
        XCTAssertEqual(world.store.purchaseCalls.map(\.productID), [Shop.premium], "the declined one is not bought")
        XCTAssertNotNil(world.store.purchaseCalls.first?.appAccountToken, "bought with the order's token")
        let alices = await world.orders(of: "alice")
        XCTAssertTrue(alices.isEmpty)
    }

    func testWithEngineADeferredPromotionIsBoughtWhenResumed() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch(promotedPurchases: .engine)
        await engine.setPromotedPurchaseHandler { _ in .defer }

        await world.store.promote(Shop.premium)
        await engine.waitUntilIdle()
        XCTAssertTrue(world.store.purchaseCalls.isEmpty)
        let deferred = await engine.deferredPromotedPurchases
        XCTAssertEqual(deferred.map(\.productID), [Shop.premium])

        let result = try await engine.resumePromotedPurchase(id: try XCTUnwrap(deferred.first?.id), user: "alice")
        XCTAssertEqual(result.order.status, .completed)
        XCTAssertEqual(result.order.source, .storeInitiated)
        XCTAssertEqual(world.store.purchaseCalls.map(\.productID), [Shop.premium])
    }

    func testIgnoredPromotedPurchasesAreNotBought() async throws {
        let world = AppStoreWorld()
        _ = try await world.launch(promotedPurchases: .ignore)

        await world.store.promote(Shop.premium)

        XCTAssertTrue(world.store.purchaseCalls.isEmpty)
        XCTAssertTrue(world.store.transactions.isEmpty)
    }
}
#endif
