// The Swift samples of the integration guide's section on subscription
// groups, offers and refund requests, compiled here (see DocSamplesTests).

import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
import XCTest

private func showMessage(_ text: String) {}
private func showTrialBadge() {}
private func signOfferOnYourServer(offerID: String, productID: String) async throws -> SignedOffer {
    SignedOffer(offerID: offerID, keyID: "KEY", nonce: UUID(), signature: Data(), timestamp: 0)
}

enum SubscriptionGuideSamples {
    static func change(engine: PurchaseEngine, userID: String) async throws {
        switch try await engine.purchase(productID: "com.example.plus.yearly", user: userID) {
        case .success: showMessage("You are on the yearly plan now.")                  // an upgrade: at once
        case .pending(_, .subscriptionChangeScheduled): showMessage("Your plan changes at the next renewal.")
        case .pending, .userCancelled: break
        }
    }

    static func offers(engine: PurchaseEngine, userID: String) async throws {
        if try await engine.isEligibleForIntroOffer(groupID: "plus-group", user: userID) {
            showTrialBadge()
        }
        let offer = try await signOfferOnYourServer(offerID: "comeback", productID: "com.example.plus.monthly")
        do {
            _ = try await engine.purchase(productID: "com.example.plus.monthly", user: userID, promotionalOffer: offer)
        } catch let error as PurchaseKitError where error.storeReason == .invalidOffer || error.storeReason == .ineligibleForOffer {
            showMessage("This offer is not available; nothing was charged.")
        }
    }

    static func refund(engine: PurchaseEngine, order: Order, userID: String) async throws {
        switch try await engine.requestRefund(orderID: order.id, user: userID) {
        case .submitted: showMessage("Apple reviews your request.")   // accepted: the order is revoked later
        case .userCancelled: break
        }
    }
}

final class SubscriptionGuideSampleTests: XCTestCase {
    func testADowngradeInTheSimulator() async throws {
        let clock = ManualClock()
        let store = SimulatedPaymentQueue(configuration: try .sample(), clock: clock)
        let engine = try PurchaseEngine(configuration: .init(
            paymentQueue: store, receiptVerifier: SimulatedReceiptServer(clock: clock, store: store),
            orderStore: InMemoryOrderStore(), clock: clock))
        try await engine.start()

        guard case .success(let yearly) = try await engine.purchase(productID: "com.example.purchasekit.plus.yearly", user: "alice")
        else { return XCTFail() }
        let renewalDate = try XCTUnwrap(yearly.transaction?.expirationDate)
        let result = try await engine.purchase(productID: "com.example.purchasekit.plus.monthly", user: "alice")
        guard case .pending(_, .subscriptionChangeScheduled) = result else { return XCTFail("\(result)") }

        clock.advance(to: renewalDate.addingTimeInterval(1))
        await store.processRenewals()       // the store renews (here: switches) what is due
        await engine.waitUntilIdle()
        let owned = try await engine.entitlements(user: "alice").map(\.productID)
        XCTAssertEqual(owned, ["com.example.purchasekit.plus.monthly"])
    }

    func testTheSimulatorsOfferAndRefundTools() async throws {
        let clock = ManualClock()
        let store = SimulatedPaymentQueue(configuration: try .sample(), clock: clock)
        let engine = try PurchaseEngine(configuration: .init(
            paymentQueue: store, receiptVerifier: SimulatedReceiptServer(clock: clock, store: store),
            orderStore: InMemoryOrderStore(), clock: clock))
        try await engine.start()
        guard case .success(let order) = try await engine.purchase(productID: "com.example.purchasekit.premium", user: "alice")
        else { return XCTFail() }

        await store.setRefundRequestBehavior(.approve(afterDays: 2))   // or .decline, .userCancels, .fails
        _ = try await engine.requestRefund(orderID: order.id, user: "alice")
        clock.advance(by: 3 * 86_400)
        await store.processRefundRequests()                          // the store decides; a revocation arrives
        await engine.waitUntilIdle()
        let owned = try await engine.entitlements(user: "alice")
        XCTAssertTrue(owned.isEmpty)
    }
}
