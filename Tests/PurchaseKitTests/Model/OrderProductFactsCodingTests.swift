import Foundation
import XCTest
@testable import PurchaseKit

/// The product facts an order records: written by this build, absent from
/// older documents, and never a reason to set an order aside.
final class OrderProductFactsCodingTests: XCTestCase {
    private let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)

    func testTheProductTypeAndGroupRoundTrip() throws {
        let order = Order(id: "o-1", productID: "plus", userID: "u", productType: .autoRenewable,
                          subscriptionGroupID: "group-a", createdAt: t0)
        let decoded = try OrderCoding.decode(try OrderCoding.encode(order))
        XCTAssertEqual(decoded, order)
        XCTAssertEqual(decoded.productType, .autoRenewable)
        XCTAssertEqual(decoded.subscriptionGroupID, "group-a")
        XCTAssertEqual(decoded.schemaVersion, 1, "an optional addition: the schema version does not change")
    }

    func testADocumentWithoutThemDecodesWithNone() throws {
        let json = #"{"schemaVersion": 1, "id": "o-2", "productID": "p", "userID": "u", "status": "completed", "createdAt": 0}"#
        let order = try OrderCoding.decode(Data(json.utf8))
        XCTAssertNil(order.productType)
        XCTAssertNil(order.subscriptionGroupID)
        // Not written back when unknown, so an older build reads exactly what it wrote.
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: try OrderCoding.encode(order)) as? [String: Any])
        XCTAssertNil(object["productType"])
        XCTAssertNil(object["subscriptionGroupID"])
    }

    func testAProductTypeFromANewerBuildReadsAsUnknownInsteadOfSettingThePaidOrderAside() throws {
        let json = #"{"schemaVersion": 1, "id": "o-3", "productID": "p", "userID": "u", "status": "completed", "createdAt": 0, "productType": "bundle"}"#
        let order = try OrderCoding.decode(Data(json.utf8))
        XCTAssertNil(order.productType)
    }

    func testADamagedAttemptCounterIsClampedSoRetryArithmeticCannotOverflow() throws {
        for (stored, expected) in [(Int.max, Order.maximumVerificationAttempts), (Int.min, 0), (-3, 0), (7, 7)] {
            let json = #"{"schemaVersion": 1, "id": "o-4", "productID": "p", "userID": "u", "status": "purchased", "createdAt": 0, "verificationAttempts": \#(stored)}"#
            XCTAssertEqual(try OrderCoding.decode(Data(json.utf8)).verificationAttempts, expected, "\(stored)")
        }
    }
}
