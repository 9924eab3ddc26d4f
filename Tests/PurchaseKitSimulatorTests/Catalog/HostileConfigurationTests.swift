import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// `.storekit` files written to attack the loader: values no App Store product
/// can have must be refused with the key path at fault, before they can make a
/// renewal overflow or spin.
final class HostileConfigurationTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-storekit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A subscription entry as Xcode writes it, with the keys under attack replaceable.
    private func subscription(period: String = "\"P1M\"", price: String = "\"2.99\"", groupNumber: String = "1",
                              offer: String? = nil) -> String {
        """
        {
          "displayPrice" : \(price),
          "familyShareable" : false,
          "groupNumber" : \(groupNumber),
          \(offer.map { "\"introductoryOffer\" : \($0)," } ?? "")
          "localizations" : [ { "description" : "", "displayName" : "Plus", "locale" : "en_US" } ],
          "productID" : "hostile.plus",
          "recurringSubscriptionPeriod" : \(period),
          "referenceName" : "Plus",
          "subscriptionGroupID" : "GROUP01",
          "type" : "RecurringSubscription"
        }
        """
    }

    /// Writes a whole configuration file, as an attacker would hand it over, and loads it from disk.
    private func load(subscription: String? = nil, product: String? = nil) throws -> StoreKitConfiguration {
        let text = """
        {
          "identifier" : "HOSTILE1",
          "nonRenewingSubscriptions" : [ ],
          "products" : [ \(product ?? "") ],
          "settings" : { "_timeRate" : 0 },
          "subscriptionGroups" : [
            { "id" : "GROUP01", "localizations" : [ ], "name" : "Plus", "subscriptions" : [ \(subscription ?? "") ] }
          ],
          "version" : { "major" : 3, "minor" : 0 }
        }
        """
        let url = folder.appendingPathComponent("attack-\(UUID().uuidString).storekit")
        try Data(text.utf8).write(to: url)
        return try StoreKitConfiguration(contentsOf: url)
    }

    private func assertRefused(_ keyPath: String, _ load: () throws -> StoreKitConfiguration,
                               file: StaticString = #filePath, line: UInt = #line) {
        do {
            let configuration = try load()
            XCTFail("loaded \(configuration.products.map(\.id))", file: file, line: line)
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .invalidConfiguration, file: file, line: line)
            XCTAssertEqual(error.keyPath, keyPath, file: file, line: line)
            XCTAssertTrue(error.message.contains(keyPath), error.message, file: file, line: line)
        } catch {
            XCTFail("untyped error \(error)", file: file, line: line)
        }
    }

    private let periodPath = "subscriptionGroups[0].subscriptions[0].recurringSubscriptionPeriod"

    func testAHugeWeeklyPeriodThatWouldOverflowAtRenewalIsRefused() {
        assertRefused(periodPath) { try load(subscription: subscription(period: "\"P2000000000000000000W\"")) }
    }

    func testAnIntMaxDailyPeriodThatWouldSpinAtRenewalIsRefused() {
        assertRefused(periodPath) { try load(subscription: subscription(period: "\"P9223372036854775807D\"")) }
    }

    func testOnlyTheAppStoresSubscriptionDurationsLoad() throws {
        for period in ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"] {
            let configuration = try load(subscription: subscription(period: "\"\(period)\""))
            XCTAssertEqual(configuration.product(id: "hostile.plus")?.subscription?.period.iso8601, period)
        }
        for period in ["P1D", "P3D", "P7D", "P2W", "P4M", "P12M", "P2Y", "P10Y", "P0M", "P-1M", "P99999999999999999999M"] {
            assertRefused(periodPath) { try load(subscription: subscription(period: "\"\(period)\"")) }
        }
    }

    func testOfferPeriodsAndCountsOutsideTheAppStoresAreRefused() throws {
        func offer(_ period: String, count: String = "1") -> String {
            "{ \"numberOfPeriods\" : \(count), \"paymentMode\" : \"free\", \"subscriptionPeriod\" : \"\(period)\" }"
        }
        for period in ["P3D", "P1W", "P2W", "P1M", "P2M", "P3M", "P6M", "P1Y"] {
            let configuration = try load(subscription: subscription(offer: offer(period, count: "12")))
            XCTAssertEqual(configuration.product(id: "hostile.plus")?.subscription?.introductoryOffer?.period.iso8601, period)
        }
        let offerPath = "subscriptionGroups[0].subscriptions[0].introductoryOffer"
        for period in ["P9223372036854775807D", "P2000000000000000000W", "P5D", "P5M", "P2Y"] {
            assertRefused(offerPath + ".subscriptionPeriod") { try load(subscription: subscription(offer: offer(period))) }
        }
        for count in ["0", "-1", "13", "9223372036854775807"] {
            assertRefused(offerPath + ".numberOfPeriods") { try load(subscription: subscription(offer: offer("P1W", count: count))) }
        }
    }

    func testPricesMustBeFiniteNonNegativeAndBounded() throws {
        let pricePath = "subscriptionGroups[0].subscriptions[0].displayPrice"
        for price in ["\"-0.99\"", "-1", "\"1e400\"", "1e300", "\"NaN\"", "\"99999999999\"", "\"\(String(repeating: "9", count: 400))\"",
                      "\"0.\(String(repeating: "0", count: 400))1\""] {
            assertRefused(pricePath) { try load(subscription: subscription(price: price)) }
        }
        for price in ["\"0\"", "\"0.99\"", "\"199.99\"", "\"14000000\"", "4.99"] {
            XCTAssertNoThrow(try load(subscription: subscription(price: price)), price)
        }
    }

    func testAGroupRankBelowOneIsRefused() {
        for rank in ["0", "-3"] {
            assertRefused("subscriptionGroups[0].subscriptions[0].groupNumber") {
                try load(subscription: subscription(groupNumber: rank))
            }
        }
    }

    func testAPeriodOnAnotherProductTypeIsCheckedToo() {
        let product = """
        { "displayPrice" : "0.99", "familyShareable" : false, "productID" : "hostile.coins",
          "recurringSubscriptionPeriod" : "P9223372036854775807D", "referenceName" : "Coins", "type" : "Consumable" }
        """
        assertRefused("products[0].recurringSubscriptionPeriod") { try load(product: product) }
    }

    /// Every real file the project carries still loads under the new limits;
    /// the files of other projects are checked by `ExternalConfigurationTests`
    /// when their folder is given.
    func testTheProjectsOwnConfigurationsStillLoad() throws {
        for name in ["v1-minimal.storekit", "v2-localized.storekit", "v3-errors.storekit", "v5-newer-keys.storekit"] {
            XCTAssertNoThrow(try StoreKitConfiguration(contentsOf: Fixtures.storeKit(name)), name)
        }
        XCTAssertNoThrow(try StoreKitConfiguration.sample())
    }
}
