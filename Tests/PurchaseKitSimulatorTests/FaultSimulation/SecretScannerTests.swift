@testable import PurchaseKitSimulator
import XCTest

/// The log check finds a secret wherever it sits in a line, and only then.
final class SecretScannerTests: XCTestCase {
    private let token = "3f2b8c1e-9a47-4d2b-8e5f-0c6a1b7d9e24"
    private let receipt = "PKSR2.dHJhbnNhY3Rpb24tMjAwMDAwMDAwMQ==.1a2b3c4d5e6f"

    func testFindsEverySecretAtTheStartMiddleAndEnd() {
        let scanner = SecretScanner([token, receipt])
        for secret in [token, receipt] {
            XCTAssertTrue(scanner.isFound(in: secret))
            XCTAssertTrue(scanner.isFound(in: "orderID=order-1 token=" + secret + " status=purchased"))
            XCTAssertTrue(scanner.isFound(in: "ends with " + secret))
        }
    }

    func testCleanLinesAndNearMissesAreNotFlagged() {
        let scanner = SecretScanner([token, receipt])
        XCTAssertFalse(scanner.isFound(in: "Order moved orderID=order-12 from=purchasing to=purchased"))
        XCTAssertFalse(scanner.isFound(in: String(token.dropLast())), "a truncated token is not the token")
        XCTAssertFalse(scanner.isFound(in: ""))
        XCTAssertFalse(SecretScanner([String]()).isFound(in: token))
    }
}
