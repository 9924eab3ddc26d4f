import Foundation
import PurchaseKit
import PurchaseKitStoreKit
import XCTest

/// The receipt format the adapter writes and the guard that keeps unverified
/// transactions from the app's verifier.
final class AppStoreReceiptTests: XCTestCase {
    private actor CountingVerifier: ReceiptVerifier {
        private(set) var calls = 0
        func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
            calls += 1
            return .delivered
        }
    }

    private let jws = "eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMSJ9.c2lnbmF0dXJl_-"

    func testAReceiptReadsBackAsWhatItWas() {
        for receipt in [AppStoreReceipt.signedTransaction(jws: jws), .unverified(reason: "invalidSignature")] {
            XCTAssertEqual(AppStoreReceipt(receipt.data), receipt)
        }
        XCTAssertEqual(AppStoreReceipt.signedTransaction(jws: jws).data, Data(jws.utf8), "the JWS itself, for the server")
        XCTAssertEqual(AppStoreReceipt(Data("not a receipt".utf8)), .unrecognized)
        XCTAssertEqual(AppStoreReceipt(Data("a.b".utf8)), .unrecognized)
        XCTAssertEqual(AppStoreReceipt(Data("a..c".utf8)), .unrecognized)
        XCTAssertEqual(AppStoreReceipt(Data("a.b+/=.c".utf8)), .unrecognized, "base64url only")
        XCTAssertEqual(AppStoreReceipt(Data([0xFF, 0xFE])), .unrecognized)
    }

    func testOnlyVerifiedTransactionsReachTheAppsVerifier() async throws {
        let inner = CountingVerifier()
        let guarded = VerifiedReceiptsOnly(inner)
        func request(_ receipt: AppStoreReceipt) -> VerificationRequest {
            VerificationRequest(order: Order(id: "o", productID: "p", userID: "u", createdAt: Date()),
                                transaction: StoreTransaction(id: "1", productID: "p", purchaseDate: Date(), receipt: receipt.data))
        }

        let verified = try await guarded.verify(request(.signedTransaction(jws: jws)))
        let unverified = try await guarded.verify(request(.unverified(reason: "invalidDeviceVerification")))
        let foreign = try await guarded.verify(request(.unrecognized))

        XCTAssertEqual(verified, .delivered)
        XCTAssertEqual(unverified, .invalid(reason: "StoreKit could not verify the transaction (invalidDeviceVerification)"))
        guard case .invalid = foreign else { return XCTFail("a foreign receipt was accepted") }
        let calls = await inner.calls
        XCTAssertEqual(calls, 1)
    }

    /// The JWS is a signed payload: printing, logging or dumping a receipt
    /// (as `print(receipt)` or a failed assertion does) must not show it.
    func testRenderingsOfASignedReceiptHideTheJWS() {
        let receipt = AppStoreReceipt.signedTransaction(jws: jws)
        var dumped = ""
        dump(receipt, to: &dumped)
        let renderings = [
            "description": String(describing: receipt), "String(reflecting:)": String(reflecting: receipt),
            "interpolation": "\(receipt)", "dump": dumped, "optional": String(describing: Optional(receipt)),
            "array": "\([receipt])",
        ]
        let signature = String(jws.split(separator: ".").last ?? "")
        for (label, text) in renderings {
            XCTAssertFalse(text.contains(jws) || text.contains(signature), "\(label) shows the JWS")
            XCTAssertTrue(text.contains("signedTransaction"), "\(label): \(text)")
        }
        XCTAssertTrue(String(describing: AppStoreReceipt.unverified(reason: "invalidSignature")).contains("invalidSignature"),
                      "StoreKit's reason is no secret and stays readable")
    }
}
