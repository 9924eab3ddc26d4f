import Foundation
import XCTest
@testable import PurchaseKit

/// Older documents still load; newer ones are refused, never half-read.
final class OrderCodingCompatibilityTests: XCTestCase {
    /// A document as schema 0 wrote it: no `schemaVersion`, and none of
    /// `quantity`, `source`, `nextAttemptAt`, `lastErrorCode`, `finishedAt`, `updatedAt`.
    /// Dates are seconds since 2001-01-01 UTC.
    private let schema0WithPaymentFinished = """
    {
      "id": "legacy-1",
      "productID": "com.example.coins.100",
      "userID": "user-7",
      "status": "purchased",
      "createdAt": 700000000.5,
      "paymentBeganAt": 700000010.25,
      "paymentFinishedAt": 700000020.75,
      "verificationAttempts": 2,
      "hint": "server timed out",
      "transaction": {
        "id": "tx-legacy",
        "originalID": "tx-legacy",
        "productID": "com.example.coins.100",
        "purchaseDate": 700000020,
        "quantity": 1,
        "receipt": "AQID",
        "environment": "production"
      },
      "metadata": {"campaign": "winter"}
    }
    """

    private let schema0Minimal = """
    {"id": "legacy-2", "productID": "p", "userID": "u", "status": "created", "createdAt": 0}
    """

    func testSchema0DocumentDecodesWithSafeDefaults() throws {
        let order = try OrderCoding.decode(Data(schema0WithPaymentFinished.utf8))
        XCTAssertEqual(order.schemaVersion, 0)
        XCTAssertEqual(order.id, "legacy-1")
        XCTAssertEqual(order.productID, "com.example.coins.100")
        XCTAssertEqual(order.userID, "user-7")
        XCTAssertEqual(order.status, .purchased)
        XCTAssertEqual(order.quantity, 1)
        XCTAssertEqual(order.source, .purchase)
        XCTAssertEqual(order.createdAt, Date(timeIntervalSinceReferenceDate: 700_000_000.5))
        XCTAssertEqual(order.paymentBeganAt, Date(timeIntervalSinceReferenceDate: 700_000_010.25))
        XCTAssertEqual(order.paymentFinishedAt, Date(timeIntervalSinceReferenceDate: 700_000_020.75))
        // The last thing schema 0 knew to have happened.
        XCTAssertEqual(order.updatedAt, Date(timeIntervalSinceReferenceDate: 700_000_020.75))
        XCTAssertEqual(order.verificationAttempts, 2)
        XCTAssertNil(order.nextAttemptAt)
        XCTAssertNil(order.lastErrorCode)
        XCTAssertNil(order.finishedAt)
        XCTAssertFalse(order.isFinished)
        XCTAssertEqual(order.hint, "server timed out")
        XCTAssertEqual(order.transactionID, "tx-legacy")
        XCTAssertEqual(order.transaction?.receipt, Data([1, 2, 3]))
        XCTAssertEqual(order.transaction?.environment, .production)
        XCTAssertEqual(order.transaction?.purchaseDate, Date(timeIntervalSinceReferenceDate: 700_000_020))
        XCTAssertEqual(order.metadata, ["campaign": "winter"])
        XCTAssertTrue(order.status.owesDelivery)
    }

    func testMinimalSchema0DocumentDefaultsUpdatedAtToCreation() throws {
        let order = try OrderCoding.decode(Data(schema0Minimal.utf8))
        XCTAssertEqual(order.schemaVersion, 0)
        XCTAssertEqual(order.createdAt, Date(timeIntervalSinceReferenceDate: 0))
        XCTAssertEqual(order.updatedAt, order.createdAt)
        XCTAssertEqual(order.verificationAttempts, 0)
        XCTAssertEqual(order.metadata, [:])
        XCTAssertNil(order.transaction)
        XCTAssertNil(order.hint)
    }

    func testSchema0DocumentIsRewrittenInTheCurrentSchema() throws {
        let old = try OrderCoding.decode(Data(schema0WithPaymentFinished.utf8))
        let rewritten = try OrderCoding.decode(try OrderCoding.encode(old))
        XCTAssertEqual(rewritten.schemaVersion, Order.currentSchemaVersion)
        var expected = old
        expected.schemaVersion = Order.currentSchemaVersion
        XCTAssertEqual(rewritten, expected)
    }

    func testFutureSchemaVersionIsRefusedNamingTheField() throws {
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: try OrderCoding.encode(CoreFixtures.fullOrder())) as? [String: Any])
        object["schemaVersion"] = 99
        let data = try JSONSerialization.data(withJSONObject: object)
        do {
            _ = try OrderCoding.decode(data)
            XCTFail("A schema 99 document was read by a schema \(Order.currentSchemaVersion) build")
        } catch {
            XCTAssertEqual(error.code, .persistenceCorrupt)
            XCTAssertEqual(error.keyPath, "schemaVersion")
            XCTAssertTrue(error.message.contains("schemaVersion"), error.message)
            XCTAssertTrue(error.message.contains("99"), error.message)
            XCTAssertTrue(error.underlying is DecodingError)
        }
    }

    func testCurrentSchemaVersionIsAccepted() throws {
        let document = """
        {"schemaVersion": \(Order.currentSchemaVersion), "id": "o", "productID": "p", "userID": "u", "status": "delivered",
         "createdAt": 10, "updatedAt": 20, "quantity": 2, "source": "restore", "verificationAttempts": 1, "metadata": {}}
        """
        let order = try OrderCoding.decode(Data(document.utf8))
        XCTAssertEqual(order.schemaVersion, Order.currentSchemaVersion)
        XCTAssertEqual(order.source, .restore)
        XCTAssertEqual(order.quantity, 2)
        XCTAssertEqual(order.updatedAt, Date(timeIntervalSinceReferenceDate: 20))
    }

    func testUnknownLastErrorCodeFromANewerBuildStillDecodes() throws {
        // Codes grow; an order written by a newer build keeps its code rather than failing to load.
        let document = """
        {"schemaVersion": 1, "id": "o", "productID": "p", "userID": "u", "status": "needsAttention",
         "createdAt": 10, "updatedAt": 20, "quantity": 1, "source": "purchase", "verificationAttempts": 5,
         "lastErrorCode": "someFutureCode", "metadata": {}}
        """
        XCTAssertEqual(try OrderCoding.decode(Data(document.utf8)).lastErrorCode?.rawValue, "someFutureCode")
    }
}
