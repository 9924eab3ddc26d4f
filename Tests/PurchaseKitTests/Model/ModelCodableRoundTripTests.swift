import Foundation
import XCTest
@testable import PurchaseKit

/// Every model type survives JSON and comes back equal.
final class ModelCodableRoundTripTests: XCTestCase {
    private func roundTrip<T: Codable & Equatable>(_ value: T, file: StaticString = #filePath, line: UInt = #line) throws -> T {
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(T.self, from: data)
        XCTAssertEqual(decoded, value, String(decoding: data, as: UTF8.self), file: file, line: line)
        return decoded
    }

    private func assertEveryCaseRoundTrips<T: Codable & Equatable & CaseIterable & RawRepresentable>(
        _ type: T.Type, file: StaticString = #filePath, line: UInt = #line
    ) throws where T.RawValue == String {
        XCTAssertFalse(T.allCases.isEmpty, file: file, line: line)
        for value in T.allCases {
            _ = try roundTrip(value, file: file, line: line)
            // The wire form is the raw value, so that files stay readable across versions.
            XCTAssertEqual(String(decoding: try JSONEncoder().encode(value), as: UTF8.self), "\"\(value.rawValue)\"",
                           file: file, line: line)
        }
    }

    func testEnumerationsRoundTripEveryCase() throws {
        try assertEveryCaseRoundTrips(ProductType.self)
        try assertEveryCaseRoundTrips(OfferPaymentMode.self)
        try assertEveryCaseRoundTrips(OrderStatus.self)
        try assertEveryCaseRoundTrips(OrderSource.self)
        try assertEveryCaseRoundTrips(StoreFailureReason.self)
        try assertEveryCaseRoundTrips(StoreEnvironment.self)
        try assertEveryCaseRoundTrips(RevocationReason.self)
        try assertEveryCaseRoundTrips(SubscriptionPeriod.Unit.self)
    }

    func testSubscriptionPeriodOfEveryUnitRoundTripsAsItsISOText() throws {
        let expected: [(SubscriptionPeriod.Unit, Int, String)] = [(.day, 3, "P3D"), (.week, 2, "P2W"), (.month, 6, "P6M"), (.year, 1, "P1Y")]
        for (unit, value, text) in expected {
            let period = try SubscriptionPeriod(value: value, unit: unit)
            XCTAssertEqual(try roundTrip(period).iso8601, text)
            XCTAssertEqual(String(decoding: try JSONEncoder().encode(period), as: UTF8.self), "\"\(text)\"")
        }
    }

    func testIntroductoryOfferAndSubscriptionInfoRoundTrip() throws {
        let offer = IntroductoryOffer(paymentMode: .payAsYouGo, period: try SubscriptionPeriod(iso8601: "P1M"),
                                      periodCount: 3, displayPrice: "$0.99")
        _ = try roundTrip(offer)
        _ = try roundTrip(IntroductoryOffer(paymentMode: .freeTrial, period: try SubscriptionPeriod(iso8601: "P1W")))
        _ = try roundTrip(SubscriptionInfo(groupID: "group-1", period: try SubscriptionPeriod(iso8601: "P1Y"),
                                           groupLevel: 2, introductoryOffer: offer))
        _ = try roundTrip(SubscriptionInfo(groupID: "group-2", period: try SubscriptionPeriod(iso8601: "P3M")))
    }

    func testProductsWithAndWithoutSubscriptionRoundTripWithExactPrices() throws {
        let cheap = try XCTUnwrap(Decimal(string: "0.99"))
        let dear = try XCTUnwrap(Decimal(string: "1234.5678"))
        let coins = StoreProduct(id: "com.example.coins.100", type: .consumable, displayName: "100 Coins",
                            description: "A pile of coins", price: cheap, displayPrice: "$0.99", currencyCode: "USD")
        let decodedCoins = try roundTrip(coins)
        XCTAssertEqual(decodedCoins.price, cheap)
        XCTAssertEqual(decodedCoins.price.description, "0.99")
        XCTAssertNil(decodedCoins.subscription)

        let offer = IntroductoryOffer(paymentMode: .payUpFront, period: try SubscriptionPeriod(iso8601: "P3M"),
                                      periodCount: 1, displayPrice: "€9.99")
        let pro = StoreProduct(id: "com.example.pro.yearly", type: .autoRenewable, displayName: "Pro", price: dear,
                          currencyCode: "EUR", isFamilyShareable: true,
                          subscription: SubscriptionInfo(groupID: "pro", period: try SubscriptionPeriod(iso8601: "P1Y"),
                                                         groupLevel: 1, introductoryOffer: offer))
        let decodedPro = try roundTrip(pro)
        XCTAssertEqual(decodedPro.price, dear)
        XCTAssertEqual(decodedPro.price.description, "1234.5678")
        XCTAssertEqual(decodedPro.subscription?.introductoryOffer?.period.iso8601, "P3M")

        let noOffer = StoreProduct(id: "com.example.pro.monthly", type: .autoRenewable, displayName: "Pro Monthly", price: cheap,
                              subscription: SubscriptionInfo(groupID: "pro", period: try SubscriptionPeriod(iso8601: "P1M")))
        XCTAssertNil(try roundTrip(noOffer).subscription?.introductoryOffer)
    }

    func testCodesRoundTripIncludingOnesThisBuildDoesNotKnow() throws {
        XCTAssertEqual(try roundTrip(PurchaseKitError.Code.verificationUnavailable), .verificationUnavailable)
        let future = PurchaseKitError.Code(rawValue: "aCodeFromANewerVersion")
        XCTAssertEqual(try roundTrip(future).rawValue, "aCodeFromANewerVersion")
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(PurchaseKitError.Code.timeout), as: UTF8.self), "\"timeout\"")
    }

    func testStoreTransactionWithEveryFieldRoundTrips() throws {
        let transaction = CoreFixtures.transaction()
        let decoded = try roundTrip(transaction)
        XCTAssertEqual(decoded.receipt, CoreFixtures.receipt)
        XCTAssertEqual(decoded.purchaseDate, CoreFixtures.date(760_000_000.125))
        XCTAssertEqual(decoded.revocationReason, .developerIssue)

        let minimal = StoreTransaction(id: "tx-9", productID: "p", purchaseDate: CoreFixtures.date(1))
        XCTAssertEqual(try roundTrip(minimal).originalID, "tx-9")
    }

    func testPaymentRoundTrips() throws {
        _ = try roundTrip(Payment(productID: "com.example.coins.100", quantity: 5, orderToken: CoreFixtures.token, userID: "user-1"))
    }

    func testOrderWithEveryFieldRoundTripsThroughOrderCoding() throws {
        let order = CoreFixtures.fullOrder()
        let data = try OrderCoding.encode(order)
        XCTAssertEqual(try OrderCoding.decode(data), order)

        // Every field is actually on the wire, not silently dropped and defaulted back.
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(Set(object.keys), [
            "schemaVersion", "id", "token", "productID", "userID", "quantity", "source", "status", "createdAt", "paymentBeganAt",
            "paymentFinishedAt", "updatedAt", "verificationAttempts", "nextAttemptAt", "hint", "lastErrorCode",
            "storeFailureReason", "transaction", "finishedAt", "metadata",
        ])
        XCTAssertEqual(object["schemaVersion"] as? Int, Order.currentSchemaVersion)
        // Dates are seconds since the reference date, exactly.
        XCTAssertEqual(object["createdAt"] as? Double, 759_999_000.001)
    }

    func testOrderWithOnlyRequiredFieldsRoundTripsThroughOrderCoding() throws {
        let order = Order(id: "order-2", productID: "p", userID: "u", createdAt: CoreFixtures.date(42.5))
        let decoded = try OrderCoding.decode(try OrderCoding.encode(order))
        XCTAssertEqual(decoded, order)
        XCTAssertNil(decoded.transaction)
        XCTAssertNil(decoded.paymentBeganAt)
        XCTAssertEqual(decoded.updatedAt, CoreFixtures.date(42.5))
        XCTAssertEqual(decoded.metadata, [:])
    }

    func testEncodingIsStableForIdenticalOrders() throws {
        // Sorted keys: the same order always gives the same bytes (diffable files, stable checksums).
        XCTAssertEqual(try OrderCoding.encode(CoreFixtures.fullOrder()), try OrderCoding.encode(CoreFixtures.fullOrder()))
    }
}
