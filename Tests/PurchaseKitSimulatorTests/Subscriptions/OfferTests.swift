import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// Introductory offers per group, promotional offers and offer codes.
final class OfferTests: XCTestCase {
    private func failure(_ observer: RecordingObserver) -> StoreFailureReason? {
        guard case .failed(let reason)? = observer.kinds.last else { return nil }
        return reason
    }

    func testIntroOfferEligibilityIsPerGroupAndEndsWithTheFirstSubscription() async throws {
        let (store, clock, observer) = await TestCatalog.Tiers.makeStore()
        var eligible = await store.isEligibleForIntroOffer(groupID: TestCatalog.Tiers.group)
        XCTAssertEqual(eligible, true)
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.plus, token: "order-plus"))
        eligible = await store.isEligibleForIntroOffer(groupID: TestCatalog.Tiers.group)
        XCTAssertEqual(eligible, false, "any subscription of the group uses the group's introductory offer up")
        try await store.cancelSubscription(productID: TestCatalog.Tiers.plus)
        clock.advance(by: 40)
        await store.processRenewals()
        observer.reset()

        // basic has a free week for newcomers; this account is not one any more.
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-basic"))
        let basic = try XCTUnwrap(observer.updates.last?.transaction)
        let length = try XCTUnwrap(basic.expirationDate).timeIntervalSince(basic.purchaseDate)
        XCTAssertGreaterThan(length, 27, "an ineligible account pays the full first month")
        let otherGroup = await store.isEligibleForIntroOffer(groupID: "another-group")
        XCTAssertEqual(otherGroup, true)
    }

    func testNewSubscriberGetsTheIntroductoryWeek() async throws {
        let (store, _, observer) = await TestCatalog.Tiers.makeStore()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-basic"))
        let basic = try XCTUnwrap(observer.updates.last?.transaction)
        XCTAssertEqual(try XCTUnwrap(basic.expirationDate).timeIntervalSince(basic.purchaseDate), 7, accuracy: 0.001)
    }

    func testValidPromotionalOfferSetsTheFirstPeriodsForALapsedSubscriber() async throws {
        let (store, clock, observer) = await TestCatalog.Tiers.makeStore()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-1"))
        try await store.cancelSubscription(productID: TestCatalog.Tiers.basic)
        clock.advance(by: 10)
        await store.processRenewals()
        observer.reset()

        let offer = store.signPromotionalOffer(offerID: TestCatalog.Tiers.promo, productID: TestCatalog.Tiers.basic, timestamp: clock.now)
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-2", offer: offer))
        XCTAssertEqual(observer.kinds, [.purchasing, .purchased])
        let transaction = try XCTUnwrap(observer.updates.last?.transaction)
        let days = try XCTUnwrap(transaction.expirationDate).timeIntervalSince(transaction.purchaseDate)
        XCTAssertGreaterThan(days, 85, "three offer months")
        XCTAssertLessThan(days, 95)
    }

    func testAPromotionalOfferWaitsWithAnAskToBuyRequest() async throws {
        let (store, clock, observer) = await TestCatalog.Tiers.makeStore()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-1"))
        try await store.cancelSubscription(productID: TestCatalog.Tiers.basic)
        clock.advance(by: 10)
        await store.processRenewals()
        await store.setBehavior(.askToBuy, for: TestCatalog.Tiers.basic)
        let offer = store.signPromotionalOffer(offerID: TestCatalog.Tiers.promo, productID: TestCatalog.Tiers.basic, timestamp: clock.now)
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-2", offer: offer))
        XCTAssertEqual(observer.kinds.last, .deferred)
        clock.advance(by: 2)
        try await store.approveAskToBuy(orderToken: "order-2")
        let transaction = try XCTUnwrap(observer.updates.last?.transaction)
        let days = try XCTUnwrap(transaction.expirationDate).timeIntervalSince(transaction.purchaseDate)
        XCTAssertGreaterThan(days, 85, "the approved purchase keeps the offer's three months")
    }

    func testPromotionalOfferIsRefusedWhenUnknownForgedReusedStaleOrForANewcomer() async throws {
        let (store, clock, observer) = await TestCatalog.Tiers.makeStore()
        // A newcomer may not have a promotional offer.
        let first = store.signPromotionalOffer(offerID: TestCatalog.Tiers.promo, productID: TestCatalog.Tiers.basic, timestamp: clock.now)
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-1", offer: first))
        XCTAssertEqual(failure(observer), .ineligibleForOffer)
        XCTAssertTrue(observer.updates.allSatisfy { $0.transaction == nil }, "nothing charged")

        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.plus, token: "order-plus"))
        try await store.cancelSubscription(productID: TestCatalog.Tiers.plus)
        clock.advance(by: 40)
        await store.processRenewals()

        let unknown = store.signPromotionalOffer(offerID: "no-such-offer", productID: TestCatalog.Tiers.basic, timestamp: clock.now)
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-2", offer: unknown))
        XCTAssertEqual(failure(observer), .invalidOffer)

        var forged = store.signPromotionalOffer(offerID: TestCatalog.Tiers.promo, productID: TestCatalog.Tiers.basic, timestamp: clock.now)
        forged.signature = Data("not-the-store-key".utf8)
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-3", offer: forged))
        XCTAssertEqual(failure(observer), .invalidOffer)

        let otherProduct = store.signPromotionalOffer(offerID: TestCatalog.Tiers.promo, productID: TestCatalog.Tiers.plus, timestamp: clock.now)
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-4", offer: otherProduct))
        XCTAssertEqual(failure(observer), .invalidOffer, "a signature for another product does not fit")

        let stale = store.signPromotionalOffer(offerID: TestCatalog.Tiers.promo, productID: TestCatalog.Tiers.basic,
                                               timestamp: clock.now.addingTimeInterval(-2 * 24 * 3600))
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-5", offer: stale))
        XCTAssertEqual(failure(observer), .invalidOffer, "a signature older than a day")

        let good = store.signPromotionalOffer(offerID: TestCatalog.Tiers.promo, productID: TestCatalog.Tiers.basic, timestamp: clock.now)
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-6", offer: good))
        XCTAssertEqual(observer.kinds.last, .purchased)
        try await store.cancelSubscription(productID: TestCatalog.Tiers.basic)
        clock.advance(by: 200)
        await store.processRenewals()
        observer.reset()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-7", offer: good))
        XCTAssertEqual(failure(observer), .invalidOffer, "a nonce signs one purchase")
    }

    func testOfferCodeRedemptionArrivesAsAStoreInitiatedPurchase() async throws {
        let (store, _, observer) = await TestCatalog.Tiers.makeStore()
        try await store.addOfferCode("WELCOME-1", productID: TestCatalog.Tiers.pro, offerID: "free-week")
        let transaction = try await unwrapped(store.redeemOfferCode("WELCOME-1", userID: "user-a"))
        let update = try XCTUnwrap(observer.updates.last)
        XCTAssertEqual(update.kind, .purchased)
        XCTAssertTrue(update.isStoreInitiated)
        XCTAssertNil(update.orderToken)
        XCTAssertEqual(update.transaction?.id, transaction.id)
        XCTAssertEqual(try XCTUnwrap(transaction.expirationDate).timeIntervalSince(transaction.purchaseDate), 7, accuracy: 0.001)
        let eligible = await store.isEligibleForIntroOffer(groupID: TestCatalog.Tiers.group)
        XCTAssertEqual(eligible, false, "an offer in the group counts as having subscribed")
    }

    func testOfferCodeFailures() async throws {
        let (store, _, _) = await TestCatalog.Tiers.makeStore()
        await assertThrows(.offerCodeInvalid) { try await store.redeemOfferCode("NOPE", userID: "user-a") }
        await assertThrows(.invalidConfiguration) {
            try await store.addOfferCode("X", productID: TestCatalog.Tiers.basic, offerID: "free-week")
        }
        try await store.addOfferCode("LOYAL", productID: TestCatalog.Tiers.pro, offerID: "loyal-month")
        await assertThrows(.offerIneligible) { try await store.redeemOfferCode("LOYAL", userID: "user-a") }

        try await store.addOfferCode("ONCE", productID: TestCatalog.Tiers.pro, offerID: "free-week")
        try await store.redeemOfferCode("ONCE", userID: "user-a")
        await assertThrows(.offerCodeInvalid) { try await store.redeemOfferCode("ONCE", userID: "user-a") }
    }

    func testOfferCodeForAnExistingSubscriberBecomesTheNextRenewal() async throws {
        let (store, clock, observer) = await TestCatalog.Tiers.makeStore()
        try await store.add(TestCatalog.Tiers.payment(TestCatalog.Tiers.pro, token: "order-pro"))
        let pro = try XCTUnwrap(observer.updates.last?.transaction)
        try await store.addOfferCode("LOYAL", productID: TestCatalog.Tiers.pro, offerID: "loyal-month")
        let now = try await store.redeemOfferCode("LOYAL", userID: "user-a")
        XCTAssertNil(now, "nothing changes before the renewal date")
        observer.reset()
        clock.advance(to: try XCTUnwrap(pro.expirationDate).addingTimeInterval(1))
        await store.processRenewals()
        let renewal = try XCTUnwrap(observer.updates.first?.transaction)
        XCTAssertEqual(renewal.originalID, pro.originalID)
        XCTAssertEqual(try XCTUnwrap(renewal.expirationDate).timeIntervalSince(renewal.purchaseDate), 14, accuracy: 0.001,
                       "the renewal is the offer's two weeks")
    }

    func testASignedOfferNeverShowsItsSignature() async throws {
        let (store, clock, _) = await TestCatalog.Tiers.makeStore()
        let offer = store.signPromotionalOffer(offerID: TestCatalog.Tiers.promo, productID: TestCatalog.Tiers.basic, timestamp: clock.now)
        let secret = String(decoding: offer.signature, as: UTF8.self)
        let payment = TestCatalog.Tiers.payment(TestCatalog.Tiers.basic, token: "order-1", offer: offer)
        var dumped = ""
        dump(payment, to: &dumped)
        for text in ["\(payment)", String(reflecting: payment), "\(offer)", dumped] {
            XCTAssertFalse(text.contains(secret), text)
            XCTAssertFalse(text.contains("order-1"), text)
        }
        XCTAssertTrue("\(payment)".contains(TestCatalog.Tiers.promo))
    }
}
