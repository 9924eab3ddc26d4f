import XCTest
import PurchaseKit
@testable import PurchaseKitSimulator

/// The receipt format is what saved demo states and receipts in flight hold:
/// building it byte by byte must give exactly what the string form gives.
final class ReceiptSignerTests: XCTestCase {
    private let signer = ReceiptSigner(key: "a test key")

    private func transaction(expires: Bool) -> StoreTransaction {
        StoreTransaction(id: "2000000042", originalID: "2000000007", productID: "sim.plus.monthly",
                         purchaseDate: Date(timeIntervalSinceReferenceDate: 812_345_678.25),
                         expirationDate: expires ? Date(timeIntervalSinceReferenceDate: 815_000_000.5) : nil,
                         quantity: 3, environment: .sandbox)
    }

    func testAReceiptIsThePrefixTheBase64FieldsAndTheirChecksum() {
        for expires in [false, true] {
            let transaction = transaction(expires: expires)
            let fields = [transaction.id, transaction.originalID, transaction.productID, "3",
                          String(transaction.purchaseDate.timeIntervalSinceReferenceDate.bitPattern, radix: 16),
                          transaction.expirationDate.map { String($0.timeIntervalSinceReferenceDate.bitPattern, radix: 16) } ?? "",
                          "sandbox"]
            let body = Data(fields.joined(separator: "\u{1F}").utf8).base64EncodedString()
            let expected = "PKSR2.\(body).\(signer.checksum(of: body))"
            XCTAssertEqual(String(decoding: signer.receipt(for: transaction), as: UTF8.self), expected)
        }
    }

    func testReceiptsOfAnyLengthAndAnyDateMatchTheStringForm() {
        // Every base64 remainder, dates whose bits start with zero nibbles or are zero, multi-byte text.
        let productIDs = ["", "a", "ab", "abc", "sim.coins", "sim.pièces.ü", "a.longer.product.identifier.than.most"]
        let seconds: [Double] = [0, 1, -1, .leastNonzeroMagnitude, 812_345_678.25, -.greatestFiniteMagnitude]
        for productID in productIDs {
            for purchase in seconds {
                for expiration in [nil, purchase + 86_400] as [Double?] {
                    for quantity in [1, 10, -7, Int.min] {
                        let transaction = StoreTransaction(
                            id: "2000000001", originalID: productID.isEmpty ? "" : "2000000000", productID: productID,
                            purchaseDate: Date(timeIntervalSinceReferenceDate: purchase),
                            expirationDate: expiration.map { Date(timeIntervalSinceReferenceDate: $0) },
                            quantity: quantity, environment: .production)
                        let payload = ReceiptSigner.Payload(
                            transactionID: transaction.id, originalTransactionID: transaction.originalID,
                            productID: productID, quantity: quantity, purchaseDate: transaction.purchaseDate,
                            expirationDate: transaction.expirationDate, environment: .production)
                        let body = Data(payload.fields.joined(separator: "\u{1F}").utf8).base64EncodedString()
                        let expected = "PKSR2.\(body).\(signer.checksum(of: body))"
                        XCTAssertEqual(String(decoding: signer.receipt(for: transaction), as: UTF8.self), expected)
                    }
                }
            }
        }
    }

    func testAReceiptOpensToWhatItWasMadeOf() throws {
        for expires in [false, true] {
            let transaction = transaction(expires: expires)
            let payload = try signer.open(signer.receipt(for: transaction)).get()
            XCTAssertEqual(payload.transactionID, transaction.id)
            XCTAssertEqual(payload.originalTransactionID, transaction.originalID)
            XCTAssertEqual(payload.productID, transaction.productID)
            XCTAssertEqual(payload.quantity, 3)
            XCTAssertEqual(payload.purchaseDate, transaction.purchaseDate)
            XCTAssertEqual(payload.expirationDate, transaction.expirationDate)
            XCTAssertEqual(payload.environment, .sandbox)
        }
    }

    func testTheChecksumIsPinned() {
        // Two FNV-1a 64 passes over key, 0, body, 0, key, each mixed by
        // SplitMix64: the values receipts already saved were signed with.
        XCTAssertEqual(signer.checksum(of: ""), "75ddbf18b6bb230621f9a93eeab93a53")
        XCTAssertEqual(signer.checksum(of: "UEtTUg=="), "293055e525650c733250ddeb5cacac9f")
        XCTAssertNotEqual(ReceiptSigner(key: "another key").checksum(of: "UEtTUg=="), signer.checksum(of: "UEtTUg=="))
    }
}
