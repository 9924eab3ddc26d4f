import Foundation
import XCTest
@testable import PurchaseKit

/// Receipts and order tokens never appear in descriptions, reflections or dumps.
final class SecretRedactionTests: XCTestCase {
    private func assertNoSecrets(_ text: String, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(text.isEmpty, label, file: file, line: line)
        for secret in CoreFixtures.secretRenderings {
            XCTAssertFalse(text.contains(secret), "\(label) shows \(secret): \(text)", file: file, line: line)
        }
    }

    func testStoreTransactionRenderingsHideReceiptAndToken() {
        let transaction = CoreFixtures.transaction()
        let renderings = [
            "description": transaction.description,
            "debugDescription": transaction.debugDescription,
            "String(reflecting:)": String(reflecting: transaction),
            "String(describing:)": String(describing: transaction),
            "interpolation": "\(transaction)",
            "dump": CoreFixtures.dumped(transaction),
            "array": "\([transaction])",
            "optional": String(describing: Optional(transaction)),
        ]
        for (label, text) in renderings { assertNoSecrets(text, label) }
        // Redacted, not removed: what is safe to show is still shown.
        XCTAssertTrue(transaction.description.contains("tx-1"))
        XCTAssertTrue(transaction.description.contains("<redacted>"))
        XCTAssertTrue(transaction.description.contains("\(CoreFixtures.receipt.count) bytes"))
        XCTAssertTrue(CoreFixtures.dumped(transaction).contains("tx-1"))
    }

    func testTransactionWithoutTokenSaysSo() {
        let transaction = StoreTransaction(id: "tx-2", productID: "p", purchaseDate: CoreFixtures.date(0))
        XCTAssertTrue(transaction.description.contains("orderToken: none"), transaction.description)
    }

    func testOrderRenderingsHideTheTransactionsReceiptAndToken() {
        let order = CoreFixtures.fullOrder()
        let renderings = [
            "description": order.description,
            "debugDescription": order.debugDescription,
            "String(reflecting:)": String(reflecting: order),
            "interpolation": "\(order)",
            "dump": CoreFixtures.dumped(order),
        ]
        for (label, text) in renderings { assertNoSecrets(text, label) }
        XCTAssertTrue(order.description.contains("order-1"))
        XCTAssertTrue(order.description.contains("transactionID: tx-1"), order.description)
        XCTAssertTrue(order.description.contains("status: needsAttention"), order.description)
    }

    func testPaymentRenderingsHideTheToken() {
        let payment = Payment(productID: "com.example.coins.100", quantity: 2, orderToken: CoreFixtures.token, userID: "user-1")
        assertNoSecrets(payment.description, "description")
        assertNoSecrets(String(reflecting: payment), "String(reflecting:)")
        assertNoSecrets("\(payment)", "interpolation")
        assertNoSecrets(CoreFixtures.dumped(payment), "dump")
        XCTAssertTrue(payment.description.contains("com.example.coins.100"))
        XCTAssertTrue(payment.description.contains("<redacted>"))
    }

    func testTransactionUpdateRenderingsHideTheTokenAndReceiptForEveryKind() {
        let kinds: [TransactionUpdate.Kind] = [.purchasing, .deferred, .interrupted, .purchased, .restored, .cancelled, .revoked]
            + StoreFailureReason.allCases.map { .failed($0) }
        for kind in kinds {
            for transaction in [CoreFixtures.transaction(), nil] {
                let update = TransactionUpdate(kind: kind, productID: "com.example.pro.monthly", orderToken: CoreFixtures.token,
                                               transaction: transaction, date: CoreFixtures.date(5))
                assertNoSecrets(update.description, "description of \(kind)")
                assertNoSecrets(String(reflecting: update), "String(reflecting:) of \(kind)")
                assertNoSecrets(CoreFixtures.dumped(update), "dump of \(kind)")
                XCTAssertTrue(update.description.contains("com.example.pro.monthly"))
                XCTAssertEqual(update.description.contains("transactionID: tx-1"), transaction != nil, update.description)
            }
        }
    }

    func testLogRedactionReplacesEverySecretKeyAndKeepsTheRest() {
        var metadata: [String: String] = ["orderID": "order-1", "productID": "p", "attempt": "3"]
        for key in LogRedaction.secretKeys { metadata[key] = "\(CoreFixtures.token)-\(key)" }
        let redacted = LogRedaction.redact(metadata)
        XCTAssertEqual(Set(redacted.keys), Set(metadata.keys))
        for key in LogRedaction.secretKeys { XCTAssertEqual(redacted[key], "<redacted>", key) }
        XCTAssertEqual(redacted["orderID"], "order-1")
        XCTAssertEqual(redacted["productID"], "p")
        XCTAssertEqual(redacted["attempt"], "3")
        assertNoSecrets("\(redacted)", "redacted metadata")
    }

    func testSecretKeysCoverTheNamesStoresUse() {
        for key in ["receipt", "orderToken", "token", "signedPayload", "jws", "appAccountToken", "applicationUsername"] {
            XCTAssertTrue(LogRedaction.secretKeys.contains(key), key)
        }
        XCTAssertEqual(LogRedaction.redact([:]), [:])
    }
}
