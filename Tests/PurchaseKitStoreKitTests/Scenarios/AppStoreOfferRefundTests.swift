#if !canImport(StoreKit)
import Foundation
import PurchaseKit
import PurchaseKitSimulator
@testable import PurchaseKitStoreKit
import StoreKitInterface
import XCTest

/// A signed promotional offer reaches StoreKit as its purchase option; intro
/// eligibility is StoreKit's; refund requests are not available through the adapter.
final class AppStoreOfferRefundTests: XCTestCase {
    override func tearDown() {
        ScriptedAppStore.uninstall()
        super.tearDown()
    }

    func testASignedOfferIsPassedToStoreKitAsThePromotionalOfferOption() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch()
        let offer = SignedOffer(offerID: "comeback", keyID: "KEY1", nonce: UUID(), signature: Data([1, 2, 3]), timestamp: 1_700_000_000_000)
        _ = try await engine.purchase(productID: Shop.monthly, user: "alice", promotionalOffer: offer)
        XCTAssertEqual(world.store.purchaseCalls.last?.promotionalOfferID, "comeback")
        _ = try await engine.purchase(productID: Shop.coins, user: "alice")
        XCTAssertNil(world.store.purchaseCalls.last?.promotionalOfferID, "no offer, no option")
    }

    func testIntroOfferEligibilityIsAskedOfStoreKit() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch()
        var bob = try await engine.isEligibleForIntroOffer(groupID: Shop.group, user: "bob")
        XCTAssertTrue(bob)
        guard case .success = try await engine.purchase(productID: Shop.monthly, user: "alice") else {
            return XCTFail("the purchase did not succeed")
        }
        bob = try await engine.isEligibleForIntroOffer(groupID: Shop.group, user: "bob")
        XCTAssertFalse(bob, "StoreKit says the account subscribed in the group")
        let otherGroup = try await engine.isEligibleForIntroOffer(groupID: "another", user: "bob")
        XCTAssertTrue(otherGroup)
    }

    func testRefundRequestsAreUnsupportedThroughTheAdapter() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch()
        guard case .success(let order) = try await engine.purchase(productID: Shop.premium, user: "alice") else {
            return XCTFail("the purchase did not succeed")
        }
        do {
            _ = try await engine.requestRefund(orderID: order.id, user: "alice")
            XCTFail("expected refundUnsupported")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .refundUnsupported)
            XCTAssertEqual(error.orderID, order.id)
        }
    }
}
#endif
