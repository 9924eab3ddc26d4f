#if !canImport(StoreKit)
import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
@testable import PurchaseKitStoreKit
import StoreKitInterface
import XCTest

/// Subscriptions: renewals and upgrades arrive as transactions of the same
/// subscription; its renewal state comes from StoreKit's status.
final class AppStoreSubscriptionTests: XCTestCase {
    override func tearDown() {
        ScriptedAppStore.uninstall()
        super.tearDown()
    }

    private func subscribe(_ world: AppStoreWorld, _ engine: PurchaseEngine) async throws -> (Order, UInt64) {
        let result = try await engine.purchase(productID: Shop.monthly, user: "alice")
        guard case .success(let order) = result else {
            XCTFail("the subscription was not bought: \(result)")
            throw CancellationError()
        }
        return (order, try world.transactionID(of: order))
    }

    func testARenewalIsDeliveredToTheSubscriber() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch(user: "bob")
        let (first, original) = try await subscribe(world, engine)

        world.advance(by: 31 * 86_400)
        let renewedID = await world.store.renew(original)
        await engine.waitUntilIdle()

        let orders = await world.orders(of: "alice")
        let renewal = try XCTUnwrap(orders.first { $0.id != first.id })
        XCTAssertEqual(renewal.source, .renewal)
        XCTAssertEqual(renewal.status, .completed)
        XCTAssertEqual(renewal.transaction?.id, renewedID.map(String.init))
        XCTAssertEqual(renewal.transaction?.originalID, String(original))
        XCTAssertEqual(first.transaction?.reason, .purchase, "StoreKit's Transaction.reason reaches the order")
        XCTAssertEqual(renewal.transaction?.reason, .renewal)
        let bobs = await world.orders(of: "bob")
        XCTAssertTrue(bobs.isEmpty, "a renewal follows its subscriber, not whoever is logged in")
    }

    func testAnUpgradeIsDeliveredToTheSubscriberAsTheSameSubscription() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch()
        let (first, original) = try await subscribe(world, engine)

        world.advance(by: 86_400)
        let upgradedID = await world.store.upgrade(original, to: Shop.premiumMonthly)
        await engine.waitUntilIdle()

        let orders = await world.orders(of: "alice")
        XCTAssertEqual(orders.count, 2, "the upgraded transaction's update changes nothing")
        let upgrade = try XCTUnwrap(orders.first { $0.id != first.id })
        XCTAssertEqual(upgrade.productID, Shop.premiumMonthly)
        XCTAssertEqual(upgrade.source, .renewal)
        XCTAssertEqual(upgrade.status, .completed)
        XCTAssertEqual(upgrade.transaction?.id, upgradedID.map(String.init))
        XCTAssertEqual(upgrade.transaction?.reason, .purchase, "StoreKit calls an upgrade a purchase")
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertTrue(entitlements.map(\.productID).contains(Shop.premiumMonthly))
    }

    func testTheGracePeriodStoreKitReportsKeepsAccessUntilItEnds() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch()
        let (_, original) = try await subscribe(world, engine)
        world.advance(by: 31 * 86_400)
        let graceEnd = world.clock.now.addingTimeInterval(6 * 86_400)
        world.store.setRenewal(original, state: .inGracePeriod, willAutoRenew: true, gracePeriodExpirationDate: graceEnd)

        var status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status, [Shop.group: .inGracePeriod])
        var entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Shop.monthly])

        // A grace period StoreKit could not verify grants nothing.
        world.store.setRenewal(original, state: .inGracePeriod, willAutoRenew: true, gracePeriodExpirationDate: graceEnd,
                               isRenewalInfoVerified: false)
        status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status, [Shop.group: .inBillingRetry])
        entitlements = try await engine.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty)
    }

    func testBillingRetryAndExpiryAreReadFromStoreKitAfterARelaunch() async throws {
        let world = AppStoreWorld()
        var original: UInt64 = 0
        do {
            let (engine, _) = try await world.launch()
            original = try await subscribe(world, engine).1
        }
        world.advance(by: 31 * 86_400)
        world.store.setRenewal(original, state: .inBillingRetryPeriod, willAutoRenew: true)
        // A new process: the adapter learns the subscription's group from Transaction.all.
        let (engine, queue) = try await world.launch()

        var status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status, [Shop.group: .inBillingRetry])
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty)

        world.store.setRenewal(original, state: .expired, willAutoRenew: false)
        status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status, [Shop.group: .expired])

        world.store.setRenewal(original, state: .subscribed, willAutoRenew: false)
        let renewal = await queue.renewalState(forOriginalTransactionID: String(original))
        XCTAssertEqual(renewal, .active(willRenew: false))
        let unknown = await queue.renewalState(forOriginalTransactionID: "42")
        XCTAssertNil(unknown)
    }
}
#endif
