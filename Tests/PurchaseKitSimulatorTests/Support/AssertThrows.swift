import PurchaseKit
import XCTest

/// Asserts that `body` throws a ``PurchaseKitError`` with `code`, and returns it.
@discardableResult
func assertThrows(_ code: PurchaseKitError.Code, file: StaticString = #filePath, line: UInt = #line,
                  _ body: () async throws -> Void) async -> PurchaseKitError? {
    do {
        try await body()
        XCTFail("expected \(code), nothing was thrown", file: file, line: line)
    } catch let error as PurchaseKitError {
        XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
        return error
    } catch {
        XCTFail("expected \(code), got \(error)", file: file, line: line)
    }
    return nil
}
