import Foundation
import XCTest
@testable import PurchaseKit

final class PurchaseKitErrorTests: XCTestCase {
    /// Every code PurchaseKit declares, written out so that a new code must be added here.
    static let allCodes: [PurchaseKitError.Code] = [
        .paymentsNotAllowed, .invalidProductIdentifiers, .productRequestFailed, .purchaseInProgress, .userCancelled,
        .paymentFailed, .orderGenerationFailed, .verificationRejected, .verificationUnavailable,
        .invalidTransition, .persistenceReadFailed, .persistenceWriteFailed, .persistenceCorrupt,
        .timeout, .storeUnavailable, .orderNotFound, .invalidConfiguration, .restoreFailed,
        .invalidQuantity, .engineShutDown,
    ]

    func testCodesAreDistinctAndPrintTheirRawValue() {
        XCTAssertEqual(Set(Self.allCodes).count, Self.allCodes.count)
        XCTAssertEqual(Set(Self.allCodes.map(\.rawValue)).count, Self.allCodes.count)
        for code in Self.allCodes {
            XCTAssertFalse(code.rawValue.isEmpty)
            XCTAssertEqual(code.description, code.rawValue)
            XCTAssertEqual(PurchaseKitError.Code(rawValue: code.rawValue), code)
        }
    }

    func testDescriptionOfEveryCodeContainsCodeMessageAndAdvice() {
        for code in Self.allCodes {
            let error = PurchaseKitError(code, "Something about \(code.rawValue) happened.", advice: "Do the thing.")
            XCTAssertTrue(error.description.contains(code.rawValue), error.description)
            XCTAssertTrue(error.description.contains(error.message), error.description)
            XCTAssertTrue(error.description.contains("Do the thing."), error.description)
            XCTAssertEqual(error.debugDescription, error.description)
            XCTAssertEqual(String(describing: error), error.description)
            XCTAssertEqual(error.errorDescription, error.message)
            XCTAssertEqual(error.recoverySuggestion, "Do the thing.")
        }
    }

    func testUnderlyingErrorIsKeptButOnlyItsTypeIsPrinted() {
        let underlying = TokenCarryingError(token: CoreFixtures.token)
        let error = PurchaseKitError(.verificationUnavailable, "The verifier could not answer.", advice: "It will be retried.",
                                     underlying: underlying, orderID: "order-1")
        XCTAssertTrue(error.description.contains("TokenCarryingError"), error.description)
        XCTAssertFalse(error.description.contains(CoreFixtures.token), error.description)
        XCTAssertFalse(String(reflecting: error).contains(CoreFixtures.token))
        XCTAssertEqual((error.underlying as? TokenCarryingError)?.token, CoreFixtures.token)
    }

    func testErrorsAboutAPaidOrderDoNotLeakItsReceiptOrToken() throws {
        var order = CoreFixtures.fullOrder()
        order.status = .purchased
        let errors: [PurchaseKitError] = [
            .invalidTransition(from: order.status, to: .purchasing, orderID: order.id),
            .paymentFailed(.networkError, orderID: order.id, underlying: TokenCarryingError(token: CoreFixtures.token)),
            PurchaseKitError(.verificationRejected, "The receipt of order '\(order.id)' was rejected.", advice: "Nothing is owed.",
                             underlying: ReceiptCarryingError(receipt: CoreFixtures.receipt), orderID: order.id),
            try XCTUnwrap(decodingFailure(of: order)),
        ]
        for error in errors {
            for secret in CoreFixtures.secretRenderings {
                XCTAssertFalse(error.description.contains(secret), "\(secret) in \(error.description)")
                XCTAssertFalse(String(reflecting: error).contains(secret), "\(secret) in \(String(reflecting: error))")
                XCTAssertFalse(error.message.contains(secret), error.message)
            }
        }
    }

    /// Damages the order's encoded transaction so that decoding fails around the receipt.
    private func decodingFailure(of order: Order) throws -> PurchaseKitError? {
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: try OrderCoding.encode(order)) as? [String: Any])
        var transaction = try XCTUnwrap(object["transaction"] as? [String: Any])
        transaction["orderToken"] = 12
        object["transaction"] = transaction
        let data = try JSONSerialization.data(withJSONObject: object)
        do {
            _ = try OrderCoding.decode(data)
            return nil
        } catch {
            XCTAssertEqual(error.keyPath, "transaction.orderToken")
            return error
        }
    }

    func testInvalidTransitionNamesBothStatusesAndTheOrder() {
        let error = PurchaseKitError.invalidTransition(from: .completed, to: .purchasing, orderID: "order-5")
        XCTAssertEqual(error.code, .invalidTransition)
        XCTAssertEqual(error.fromStatus, .completed)
        XCTAssertEqual(error.toStatus, .purchasing)
        XCTAssertEqual(error.orderID, "order-5")
        XCTAssertTrue(error.message.contains("from completed to purchasing"), error.message)
        XCTAssertTrue(error.message.contains("order-5"), error.message)
        let anonymous = PurchaseKitError.invalidTransition(from: .rejected, to: .delivered, orderID: nil)
        XCTAssertNil(anonymous.orderID)
        XCTAssertTrue(anonymous.message.contains("from rejected to delivered"), anonymous.message)
    }

    func testInvalidProductIdentifiersAreListedSorted() {
        let error = PurchaseKitError.invalidProductIdentifiers(["com.example.c", "com.example.a", "com.example.b"])
        XCTAssertEqual(error.code, .invalidProductIdentifiers)
        XCTAssertEqual(error.productIDs, ["com.example.a", "com.example.b", "com.example.c"])
        XCTAssertTrue(error.message.contains("3 products: com.example.a, com.example.b, com.example.c."), error.message)
        XCTAssertTrue(error.description.contains("com.example.a, com.example.b, com.example.c"))

        let single = PurchaseKitError.invalidProductIdentifiers(["com.example.only"])
        XCTAssertEqual(single.productIDs, ["com.example.only"])
        XCTAssertTrue(single.message.contains("the product: com.example.only."), single.message)
    }

    func testPaymentFailedCarriesTheReasonAndItsExplanation() {
        for reason in StoreFailureReason.allCases {
            let error = PurchaseKitError.paymentFailed(reason, orderID: "order-3")
            XCTAssertEqual(error.code, .paymentFailed)
            XCTAssertEqual(error.storeReason, reason)
            XCTAssertEqual(error.orderID, "order-3")
            XCTAssertTrue(error.message.contains(reason.explanation), error.message)
            XCTAssertEqual(error.advice, reason.advice)
            XCTAssertNil(error.underlying)
        }
        // Each reason says something different, or the caller cannot act on it.
        XCTAssertEqual(Set(StoreFailureReason.allCases.map(\.explanation)).count, StoreFailureReason.allCases.count)
    }

    func testCorruptRendersNestedKeyPaths() throws {
        struct Configuration: Decodable { var products: [StoreProduct] }
        let product = #"{"id": "p%d", "type": "%@", "displayName": "P", "description": "", "price": 1, "displayPrice": "1", "currencyCode": "USD", "isFamilyShareable": false}"#
        let products = ["consumable", "nonConsumable", "subscriptionForever"].enumerated()
            .map { product.replacingOccurrences(of: "%d", with: "\($0.offset)").replacingOccurrences(of: "%@", with: $0.element) }
        let json = #"{"products": ["# + products.joined(separator: ",") + "]}"
        do {
            _ = try JSONDecoder().decode(Configuration.self, from: Data(json.utf8))
            XCTFail("decoded an unknown product type")
        } catch let decodingError as DecodingError {
            let error = PurchaseKitError.corrupt(decodingError, what: "the configuration file", code: .invalidConfiguration)
            XCTAssertEqual(error.code, .invalidConfiguration)
            XCTAssertEqual(error.keyPath, "products[2].type")
            XCTAssertTrue(error.message.hasPrefix("The configuration file could not be read at 'products[2].type'"), error.message)
            XCTAssertFalse(error.message.contains("subscriptionForever"), error.message)
            XCTAssertTrue(error.underlying is DecodingError)
        }
    }

    func testCorruptOfAMissingNestedKeyIncludesTheKey() {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int?
            init(stringValue: String) { self.stringValue = stringValue }
            init(intValue: Int) { self.stringValue = "Index \(intValue)"; self.intValue = intValue }
        }
        let failure = DecodingError.keyNotFound(Key(stringValue: "price"), .init(
            codingPath: [Key(stringValue: "products"), Key(intValue: 0)], debugDescription: "missing"))
        let error = PurchaseKitError.corrupt(failure, what: "a document")
        XCTAssertEqual(error.code, .persistenceCorrupt)
        XCTAssertEqual(error.keyPath, "products[0].price")
    }

    func testEqualityComparesWhatTheErrorSays() {
        let a = PurchaseKitError.paymentFailed(.declined, orderID: "o")
        XCTAssertEqual(a, .paymentFailed(.declined, orderID: "o", underlying: TokenCarryingError(token: "t")))
        XCTAssertNotEqual(a, .paymentFailed(.declined, orderID: "other"))
        XCTAssertNotEqual(a, .paymentFailed(.unknown, orderID: "o"))
    }
}

/// A plug-in's error whose own description would leak a token.
struct TokenCarryingError: Error, Sendable, CustomStringConvertible {
    var token: String
    var description: String { "server refused token \(token)" }
}

/// A plug-in's error that carries the receipt it was given.
struct ReceiptCarryingError: Error, Sendable, CustomStringConvertible {
    var receipt: Data
    var description: String { "bad receipt \(String(decoding: receipt, as: UTF8.self)) \(receipt.base64EncodedString())" }
}
