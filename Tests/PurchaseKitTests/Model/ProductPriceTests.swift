import Foundation
import XCTest
import PurchaseKit

/// Localized prices from `Decimal`, currency and locale, with Foundation's
/// formatting. The expected strings were checked on Linux with Swift 6.3's
/// Foundation; de_DE puts a no-break space (U+00A0) before the euro sign.
final class ProductPriceTests: XCTestCase {
    private func product(_ price: String, _ currency: String, period: String? = nil) throws -> StoreProduct {
        let subscription = try period.map { SubscriptionInfo(groupID: "g", period: try SubscriptionPeriod(iso8601: $0)) }
        return StoreProduct(id: "p", type: subscription == nil ? .nonConsumable : .autoRenewable, displayName: "P",
                       price: try XCTUnwrap(Decimal(string: price)), displayPrice: "raw \(price)",
                       currencyCode: currency, subscription: subscription)
    }

    func testPricesAreFormattedForTheLocale() throws {
        let enUS = Locale(identifier: "en_US")
        let deDE = Locale(identifier: "de_DE")
        let jaJP = Locale(identifier: "ja_JP")
        XCTAssertEqual(try product("4.99", "USD").formattedPrice(locale: enUS), "$4.99")
        XCTAssertEqual(try product("1234.5", "USD").formattedPrice(locale: enUS), "$1,234.50")
        XCTAssertEqual(try product("4.99", "EUR").formattedPrice(locale: deDE), "4,99\u{A0}€")
        XCTAssertEqual(try product("1234.5", "EUR").formattedPrice(locale: deDE), "1.234,50\u{A0}€")
        XCTAssertEqual(try product("600", "JPY").formattedPrice(locale: jaJP), "¥600")
        XCTAssertEqual(try product("1200", "JPY").formattedPrice(locale: jaJP), "¥1,200")
        XCTAssertEqual(try product("6", "USD").formattedPrice(locale: enUS), "$6.00", "not the raw \"6\"")
    }

    func testTheStoresDisplayPriceIsKeptAsGiven() throws {
        let product = try product("4.99", "EUR")
        XCTAssertEqual(product.displayPrice, "raw 4.99")
        XCTAssertEqual(product.formattedPrice(locale: Locale(identifier: "de_DE")), "4,99\u{A0}€")
    }

    func testPricePerPeriod() throws {
        let enUS = Locale(identifier: "en_US")
        XCTAssertEqual(try product("9.99", "USD", period: "P1M").formattedPricePerPeriod(locale: enUS), "$9.99/month")
        XCTAssertEqual(try product("24.99", "USD", period: "P3M").formattedPricePerPeriod(locale: enUS), "$24.99/3 months")
        XCTAssertEqual(try product("1.99", "USD", period: "P1W").formattedPricePerPeriod(locale: enUS), "$1.99/week")
        XCTAssertEqual(try product("49.99", "USD", period: "P1Y").formattedPricePerPeriod(locale: enUS), "$49.99/year")
        XCTAssertEqual(try product("4.99", "EUR", period: "P1W").formattedPricePerPeriod(locale: Locale(identifier: "de_DE")),
                       "4,99\u{A0}€/week")
        XCTAssertEqual(try product("1200", "JPY", period: "P1Y").formattedPricePerPeriod(locale: Locale(identifier: "ja_JP")),
                       "¥1,200/year")
        XCTAssertNil(try product("4.99", "USD").formattedPricePerPeriod(locale: enUS), "no period, no price per period")
    }
}
