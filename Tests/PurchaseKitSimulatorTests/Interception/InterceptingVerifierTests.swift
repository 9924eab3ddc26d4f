import XCTest
import Foundation
import PurchaseKit
import PurchaseKitSimulator

final class InterceptingVerifierTests: XCTestCase {
    struct Timeout: Error {}

    /// A verifier that delivers everything and counts the requests it got.
    final class Delivering: ReceiptVerifier {
        private let count = Locked(0)
        var requests: Int { count.withLock { $0 } }
        func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
            count.withLock { $0 += 1 }
            return .delivered
        }
    }

    private func request(_ id: String) -> VerificationRequest {
        VerificationRequest(order: Order(id: "o-\(id)", productID: "p", userID: "u", createdAt: Date(timeIntervalSince1970: 0)),
                            transaction: StoreTransaction(id: id, productID: "p", purchaseDate: Date(timeIntervalSince1970: 0)))
    }

    func testForwardsAndRecords() async throws {
        let base = Delivering()
        let verifier = InterceptingVerifier(wrapping: base)
        let verdict = try await verifier.verify(request("t1"))
        XCTAssertEqual(verdict, .delivered)
        XCTAssertEqual(base.requests, 1)
        XCTAssertEqual(verifier.calls, [.verify(request("t1"))])
        XCTAssertEqual(verifier.calls.map(\.request.idempotencyKey), ["t1"])
    }

    func testAnswersFailsAndLosesReplies() async throws {
        let base = Delivering()
        let verifier = InterceptingVerifier(wrapping: base) { call in
            switch call.request.transaction.id {
            case "forged": return .answer(.invalid(reason: "signature mismatch"))
            case "down": return .fail(Timeout())
            case "lost": return .proceedThen { _ in throw Timeout() }
            default: return .proceed
            }
        }
        let forged = try await verifier.verify(request("forged"))
        XCTAssertEqual(forged, .invalid(reason: "signature mismatch"))
        XCTAssertEqual(base.requests, 0)
        let down = try? await verifier.verify(request("down"))
        XCTAssertNil(down)
        XCTAssertEqual(base.requests, 0)
        let lost = try? await verifier.verify(request("lost"))
        XCTAssertNil(lost)
        XCTAssertEqual(base.requests, 1, "the server applied the request whose reply was lost")
        XCTAssertEqual(verifier.calls.count, 3)
    }

    func testWaitingForCalls() async throws {
        let verifier = InterceptingVerifier(wrapping: Delivering())
        let waiter = Task { await verifier.waitForCalls(2) }
        _ = try await verifier.verify(request("a"))
        _ = try await verifier.verify(request("b"))
        await waiter.value
        await verifier.waitForCalls { $0.request.transaction.id == "b" }
        verifier.clearCalls()
        XCTAssertEqual(verifier.calls, [])
    }
}
