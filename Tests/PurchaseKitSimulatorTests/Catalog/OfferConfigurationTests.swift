import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// `adHocOffers`, `codeOffers`, `winbackOffers` and group names from `.storekit` files.
final class OfferConfigurationTests: XCTestCase {
    func testOffersAndTheGroupNameAreLoaded() throws {
        let configuration = try StoreKitConfiguration(contentsOf: Fixtures.storeKit("v4-offers.storekit"))
        let premium = try XCTUnwrap(configuration.product(id: "fixture.stream.premium")?.subscription)
        XCTAssertEqual(premium.groupName, "Streaming Plans")
        XCTAssertEqual(premium.groupLevel, 1)
        XCTAssertEqual(premium.offers.map(\.kind), [.promotional, .offerCode, .winBack])
        let promotional = premium.offers[0]
        XCTAssertEqual(promotional.id, "fixture.comeback")
        XCTAssertEqual(promotional.paymentMode, .payAsYouGo)
        XCTAssertEqual(promotional.period.iso8601, "P1M")
        XCTAssertEqual(promotional.periodCount, 3)
        XCTAssertEqual(promotional.displayPrice, "0.99")
        let code = premium.offers[1]
        XCTAssertEqual(code.id, "fixture-free-week", "an offer code is named by its reference name")
        XCTAssertEqual(code.paymentMode, .freeTrial)
        XCTAssertEqual(code.eligibility, [.new, .expired])
        let winBack = premium.offers[2]
        XCTAssertEqual(winBack.id, "fixture.winback")
        XCTAssertEqual(winBack.paymentMode, .payUpFront)
        XCTAssertEqual(winBack.periodCount, 2)
        XCTAssertEqual(premium.promotionalOffers.map(\.id), ["fixture.comeback"])
        XCTAssertEqual(premium.offerCodeOffers.map(\.id), ["fixture-free-week"])
        XCTAssertEqual(premium.winBackOffers.map(\.id), ["fixture.winback"])
        XCTAssertEqual(premium.offer(id: "fixture.winback", kind: .winBack), winBack)
        XCTAssertNil(premium.offer(id: "fixture.winback", kind: .promotional))
        let basic = try XCTUnwrap(configuration.product(id: "fixture.stream.basic")?.subscription)
        XCTAssertEqual(basic.offers, [], "no winbackOffers key at all is no offer")
        XCTAssertEqual(basic.groupName, "Streaming Plans")
    }

    func testLoadedOffersWorkInTheSimulatedStore() async throws {
        let configuration = try StoreKitConfiguration(contentsOf: Fixtures.storeKit("v4-offers.storekit"))
        let clock = ManualClock()
        let store = SimulatedPaymentQueue(configuration: configuration, clock: clock)
        let observer = RecordingObserver()
        await store.attach(observer)
        try await store.addOfferCode("FIXTURE", productID: "fixture.stream.premium", offerID: "fixture-free-week")
        let transaction = try await unwrapped(store.redeemOfferCode("FIXTURE", userID: "u"))
        XCTAssertEqual(try XCTUnwrap(transaction.expirationDate).timeIntervalSince(transaction.purchaseDate), 7, accuracy: 0.001)
        // Premium (level 1) to basic (level 2) is a downgrade: it waits for the renewal date.
        try await store.add(Payment(productID: "fixture.stream.basic", orderToken: "t", userID: "u"))
        XCTAssertEqual(observer.kinds.last, .scheduled)
    }

    func testAnOfferWithABadPeriodNamesItsKeyPath() throws {
        let text = try String(contentsOf: Fixtures.storeKit("v4-offers.storekit"), encoding: .utf8)
            .replacingOccurrences(of: "\"subscriptionPeriod\" : \"P2M\"", with: "\"subscriptionPeriod\" : \"P5D\"")
        XCTAssertThrowsError(try StoreKitConfiguration(data: Data(text.utf8))) { error in
            let error = error as? PurchaseKitError
            XCTAssertEqual(error?.code, .invalidConfiguration)
            XCTAssertTrue(error?.keyPath?.contains("winbackOffers") ?? false, String(describing: error?.keyPath))
        }
    }

    func testSubscriptionInfoWithoutTheNewKeysStillDecodes() throws {
        let old = Data(#"{"groupID":"g","period":"P1M","groupLevel":2}"#.utf8)
        let info = try JSONDecoder().decode(SubscriptionInfo.self, from: old)
        XCTAssertNil(info.groupName)
        XCTAssertEqual(info.offers, [])
        XCTAssertEqual(info.groupLevel, 2)
        let again = try JSONDecoder().decode(SubscriptionInfo.self, from: JSONEncoder().encode(info))
        XCTAssertEqual(again, info)
    }

    /// The real files (see `ExternalConfigurationTests`): RevenueCat's tester has promotional and code offers.
    func testRealFilesOffersLoad() throws {
        guard let path = ProcessInfo.processInfo.environment["PURCHASEKIT_STOREKIT_FIXTURES"], !path.isEmpty else {
            throw XCTSkip("PURCHASEKIT_STOREKIT_FIXTURES is not set.")
        }
        let url = URL(fileURLWithPath: path).appendingPathComponent("revenuecat-PurchaseTesterStoreKitConfiguration.storekit")
        guard FileManager.default.fileExists(atPath: url.path) else { throw XCTSkip("The folder has no RevenueCat tester file.") }
        let configuration = try StoreKitConfiguration(contentsOf: url)
        let p1 = try XCTUnwrap(configuration.product(id: "P1")?.subscription)
        XCTAssertEqual(p1.groupName, "michail_testing")
        XCTAssertEqual(p1.offers.filter { $0.kind == .promotional }.map(\.id).sorted(),
                       ["Deema_promo_offer_identifier_3", "deema_promo2_offer_id", "deema_promo_offer_identifier"].sorted())
        XCTAssertFalse(p1.offers.filter { $0.kind == .offerCode }.isEmpty)
    }
}
