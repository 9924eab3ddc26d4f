import XCTest
import PurchaseKit
import PurchaseKitSimulator

final class StoreKitConfigurationTests: XCTestCase {
    func testVersion1LoadsProductsAndSubscriptionGroups() throws {
        let configuration = try StoreKitConfiguration(contentsOf: Fixtures.storeKit("v1-minimal.storekit"))
        XCTAssertEqual(configuration.formatVersion.major, 1)
        XCTAssertEqual(configuration.products.map(\.id), ["fixture.gems.10", "fixture.noads", "fixture.plus.monthly"])
        let gems = try XCTUnwrap(configuration.product(id: "fixture.gems.10"))
        XCTAssertEqual(gems.type, .consumable)
        XCTAssertEqual(gems.price, Decimal(string: "0.99"))
        XCTAssertEqual(gems.displayName, "Gems")
        XCTAssertEqual(gems.description, "A handful of gems")
        XCTAssertEqual(gems.currencyCode, "USD")
        let noAds = try XCTUnwrap(configuration.product(id: "fixture.noads"))
        XCTAssertEqual(noAds.type, .nonConsumable)
        XCTAssertTrue(noAds.isFamilyShareable)
        let plus = try XCTUnwrap(configuration.product(id: "fixture.plus.monthly"))
        XCTAssertEqual(plus.type, .autoRenewable)
        XCTAssertEqual(plus.displayName, "Plus Monthly", "without localizations the reference name is used")
        XCTAssertEqual(plus.subscription?.period.iso8601, "P1M")
        XCTAssertEqual(plus.subscription?.groupID, "AAAA0001")
        XCTAssertEqual(plus.subscription?.groupLevel, 1)
        XCTAssertNil(plus.subscription?.introductoryOffer)
        XCTAssertEqual(configuration.settings, StoreKitConfiguration.Settings())
    }

    func testVersion2ReadsSettingsOffersAndLocalizations() throws {
        let configuration = try StoreKitConfiguration(contentsOf: Fixtures.storeKit("v2-localized.storekit"))
        XCTAssertEqual(configuration.formatVersion.major, 2)
        XCTAssertTrue(configuration.settings.askToBuyEnabled)
        XCTAssertEqual(configuration.settings.timeRate.rawValue, 6)
        XCTAssertEqual(configuration.settings.timeRate.factor, 86_400)
        XCTAssertEqual(configuration.settings.storefront, "GBR")
        let coins = try XCTUnwrap(configuration.product(id: "fixture.coins"))
        XCTAssertEqual(coins.displayName, "Coins", "the file's _locale en_GB is chosen")
        XCTAssertEqual(coins.price, Decimal(string: "12.00"))
        XCTAssertEqual(coins.currencyCode, "GBP")
        let season = try XCTUnwrap(configuration.product(id: "fixture.season"))
        XCTAssertEqual(season.type, .nonRenewable)
        XCTAssertEqual(season.displayName, "Season Pass", "no en_GB entry: same language wins")
        let yearly = try XCTUnwrap(configuration.product(id: "fixture.pro.yearly"))
        XCTAssertEqual(yearly.subscription?.period.iso8601, "P1Y")
        XCTAssertEqual(yearly.subscription?.introductoryOffer,
                       IntroductoryOffer(paymentMode: .payUpFront, period: try SubscriptionPeriod(iso8601: "P3M"),
                                         periodCount: 1, displayPrice: "9.99"))
    }

    func testAnExplicitLocaleChoosesTheLocalizationAndFallsBackToTheFirst() throws {
        let url = try Fixtures.storeKit("v2-localized.storekit")
        let french = try StoreKitConfiguration(contentsOf: url, locale: "fr_FR")
        XCTAssertEqual(french.product(id: "fixture.season")?.displayName, "Passe saison")
        XCTAssertEqual(french.product(id: "fixture.coins")?.displayName, "Pièces", "fr_CA matches the language")
        let japanese = try StoreKitConfiguration(contentsOf: url, locale: "ja_JP")
        XCTAssertEqual(japanese.product(id: "fixture.season")?.displayName, "Season Pass")
    }

    func testVersion3ReadsStoreKitErrorsAndTheStoreHonoursThem() async throws {
        let configuration = try StoreKitConfiguration(contentsOf: Fixtures.storeKit("v3-errors.storekit"))
        XCTAssertEqual(configuration.formatVersion.major, 3)
        XCTAssertTrue(configuration.settings.failTransactionsEnabled)
        XCTAssertTrue(configuration.settings.isErrorEnabled("Load Products"))
        XCTAssertFalse(configuration.settings.isErrorEnabled("Purchase"))
        let store = SimulatedPaymentQueue(configuration: configuration, clock: ManualClock())
        do {
            _ = try await store.products(for: ["fixture.hint"])
            XCTFail("Load Products errors are enabled")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .productRequestFailed)
        }
    }

    func testVersion5IgnoresUnknownKeys() throws {
        let configuration = try StoreKitConfiguration(contentsOf: Fixtures.storeKit("v5-newer-keys.storekit"))
        XCTAssertEqual(configuration.formatVersion.major, 5)
        XCTAssertEqual(configuration.settings.timeRate.factor, 86_400)
        XCTAssertTrue(configuration.settings.billingGracePeriodEnabled)
        XCTAssertTrue(configuration.settings.billingIssuesEnabled)
        XCTAssertEqual(configuration.settings.locale, "de_DE")
        let weekly = try XCTUnwrap(configuration.product(id: "fixture.weekly"))
        XCTAssertEqual(weekly.displayName, "Wöchentlich")
        XCTAssertEqual(weekly.currencyCode, "EUR")
        XCTAssertEqual(weekly.subscription?.introductoryOffer?.paymentMode, .freeTrial)
        XCTAssertEqual(weekly.subscription?.introductoryOffer?.period.iso8601, "P1W")
    }

    func testMalformedFilesNameTheKeyPathAtFault() throws {
        let cases: [(String, String)] = [
            ("bad-type.storekit", "products[1].type"),
            ("missing-product-id.storekit", "subscriptionGroups[0].subscriptions[0].productID"),
            ("bad-period.storekit", "subscriptionGroups[0].subscriptions[0].recurringSubscriptionPeriod"),
            ("bad-price.storekit", "products[0].displayPrice"),
        ]
        for (file, keyPath) in cases {
            let url = try Fixtures.malformed(file)
            do {
                _ = try StoreKitConfiguration(contentsOf: url)
                XCTFail("\(file) must not load")
            } catch {
                XCTAssertEqual(error.code, .invalidConfiguration, file)
                XCTAssertEqual(error.keyPath, keyPath, file)
                XCTAssertTrue(error.message.contains(keyPath), "\(file): \(error.message)")
            }
        }
    }

    func testTruncatedAndForeignDataGiveATypedError() throws {
        let truncated = try Data(contentsOf: Fixtures.malformed("truncated.storekit"))
        for data in [truncated, Data("[1, 2, 3]".utf8), Data()] {
            XCTAssertThrowsError(try StoreKitConfiguration(data: data)) { error in
                XCTAssertEqual((error as? PurchaseKitError)?.code, .invalidConfiguration)
            }
        }
        let wrongType = Data(#"{"products": {"productID": "x"}}"#.utf8)
        XCTAssertThrowsError(try StoreKitConfiguration(data: wrongType)) { error in
            XCTAssertEqual((error as? PurchaseKitError)?.keyPath, "products")
        }
    }

    func testMissingFileGivesATypedError() {
        XCTAssertThrowsError(try StoreKitConfiguration(contentsOf: URL(fileURLWithPath: "no-such-file.storekit"))) { error in
            XCTAssertEqual((error as? PurchaseKitError)?.code, .invalidConfiguration)
        }
    }

    func testTimeRateMapping() {
        typealias TimeRate = StoreKitConfiguration.TimeRate
        XCTAssertEqual(TimeRate(xcodeRawValue: 0).factor, 1)
        XCTAssertEqual(TimeRate(xcodeRawValue: 1).factor, 24)
        XCTAssertEqual(TimeRate(xcodeRawValue: 10).factor, 720)
        XCTAssertEqual(TimeRate(xcodeRawValue: 15).factor, 86_400)
        XCTAssertFalse(TimeRate(xcodeRawValue: 99).isKnown)
        XCTAssertEqual(TimeRate(xcodeRawValue: 99).factor, 1)
        XCTAssertEqual(TimeRate(factor: 0.5).factor, 1, "time never runs slower than the clock")
    }
}

final class SampleConfigurationTests: XCTestCase {
    func testTheBundledSampleLoadsAndSells() async throws {
        let configuration = try StoreKitConfiguration.sample()
        XCTAssertEqual(configuration.products.count, 5)
        XCTAssertEqual(Set(configuration.products.map(\.type)), Set(ProductType.allCases))
        let store = SimulatedPaymentQueue(configuration: configuration, clock: ManualClock())
        let observer = RecordingObserver()
        await store.attach(observer)
        try await store.add(Payment(productID: "com.example.purchasekit.premium", orderToken: "o", userID: "u"))
        XCTAssertEqual(observer.kinds, [.purchasing, .purchased])
    }
}
