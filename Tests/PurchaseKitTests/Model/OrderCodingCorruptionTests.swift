import Foundation
import XCTest
@testable import PurchaseKit

/// Damaged documents give a typed error naming the field at fault; nothing crashes.
final class OrderCodingCorruptionTests: XCTestCase {
    /// Decodes `data`, expecting `.persistenceCorrupt` and, when given, the key path.
    private func assertCorrupt(
        _ data: Data, keyPath expectedKeyPath: String? = nil, _ label: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) {
        do {
            let order = try OrderCoding.decode(data)
            XCTFail("\(label): decoded \(order) from damaged data", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, .persistenceCorrupt, "\(label): \(error)", file: file, line: line)
            XCTAssertFalse(error.message.isEmpty, file: file, line: line)
            if let expectedKeyPath {
                XCTAssertEqual(error.keyPath, expectedKeyPath, "\(label): \(error)", file: file, line: line)
                XCTAssertTrue(error.message.contains("'\(expectedKeyPath)'"), error.message, file: file, line: line)
            }
        }
    }

    /// A valid document as a mutable JSON object.
    private func validObject() throws -> [String: Any] {
        let data = try OrderCoding.encode(CoreFixtures.fullOrder())
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func document(_ change: (inout [String: Any]) -> Void) throws -> Data {
        var object = try validObject()
        change(&object)
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    func testTheUnchangedDocumentDecodes() throws {
        // Guards the helpers: the damage below is what fails, not the base document.
        XCTAssertEqual(try OrderCoding.decode(try document { _ in }), CoreFixtures.fullOrder())
    }

    func testEmptyData() {
        assertCorrupt(Data(), "empty")
    }

    func testRandomBytes() {
        var generator = SeededRandomNumberGenerator(seed: 0xC0FFEE)
        for round in 0..<200 {
            let count = Int.random(in: 1...300, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            assertCorrupt(Data(bytes), "random round \(round)")
        }
    }

    func testEveryTruncationOfAValidDocument() throws {
        let data = try OrderCoding.encode(CoreFixtures.fullOrder())
        for length in stride(from: 0, to: data.count, by: 1) {
            assertCorrupt(data.prefix(length), "truncated to \(length) of \(data.count) bytes")
        }
    }

    func testUnknownStatus() throws {
        let data = try document { $0["status"] = "teleported" }
        assertCorrupt(data, keyPath: "status")
        // The offending value is not copied into the description.
        do { _ = try OrderCoding.decode(data) } catch {
            XCTAssertFalse(error.description.contains("teleported"), error.description)
        }
    }

    func testWrongTypes() throws {
        assertCorrupt(try document { $0["quantity"] = "three" }, keyPath: "quantity")
        assertCorrupt(try document { $0["createdAt"] = "yesterday" }, keyPath: "createdAt")
        assertCorrupt(try document { $0["source"] = 7 }, keyPath: "source")
        assertCorrupt(try document { $0["verificationAttempts"] = [1, 2] }, keyPath: "verificationAttempts")
        assertCorrupt(try document { $0["metadata"] = ["campaign": 3] }, keyPath: "metadata.campaign")
        assertCorrupt(try document { $0["schemaVersion"] = "one" }, keyPath: "schemaVersion")
    }

    func testMissingRequiredFields() throws {
        for key in ["id", "productID", "userID", "status", "createdAt"] {
            assertCorrupt(try document { $0[key] = nil }, keyPath: key, "without \(key)")
        }
    }

    func testNullInARequiredField() throws {
        assertCorrupt(try document { $0["id"] = NSNull() }, keyPath: "id")
    }

    func testArrayInsteadOfObject() throws {
        let order = try validObject()
        let data = try JSONSerialization.data(withJSONObject: [order])
        assertCorrupt(data, "array")
        do { _ = try OrderCoding.decode(data) } catch {
            XCTAssertTrue(error.message.contains("top level"), error.message)
        }
        assertCorrupt(Data("\"an order\"".utf8), "string")
        assertCorrupt(Data("null".utf8), "null")
    }

    func testNestedTransactionWithWrongTypes() throws {
        func withTransaction(_ change: @escaping (inout [String: Any]) -> Void) throws -> Data {
            try document { object in
                var transaction = object["transaction"] as? [String: Any] ?? [:]
                change(&transaction)
                object["transaction"] = transaction
            }
        }
        assertCorrupt(try withTransaction { $0["purchaseDate"] = "noon" }, keyPath: "transaction.purchaseDate")
        assertCorrupt(try withTransaction { $0["quantity"] = true }, keyPath: "transaction.quantity")
        assertCorrupt(try withTransaction { $0["environment"] = "moon" }, keyPath: "transaction.environment")
        assertCorrupt(try withTransaction { $0["receipt"] = "%%% not base64 %%%" }, keyPath: "transaction.receipt")
        assertCorrupt(try withTransaction { $0["id"] = nil }, keyPath: "transaction.id")
        assertCorrupt(try document { $0["transaction"] = "tx-1" }, keyPath: "transaction")
    }

    func testCorruptDocumentErrorDoesNotLeakTheReceiptOrToken() throws {
        // A damaged document that still carries a receipt and token: the error names the field only.
        var object = try validObject()
        object["status"] = CoreFixtures.token
        let data = try JSONSerialization.data(withJSONObject: object)
        do {
            _ = try OrderCoding.decode(data)
            XCTFail("decoded a document with an unknown status")
        } catch {
            for secret in CoreFixtures.secretRenderings {
                XCTAssertFalse(error.description.contains(secret), "\(secret) in \(error.description)")
                XCTAssertFalse(String(reflecting: error).contains(secret), secret)
            }
        }
    }
}
