import XCTest
@testable import PurchaseKit

/// The one owner of waiting purchase calls: each is answered exactly once,
/// whether the answer comes before or after the call suspends.
final class WaitingCallsTests: XCTestCase {
    private let order = Order(id: "o", productID: "p", userID: "u", createdAt: Date(timeIntervalSinceReferenceDate: 0))
    private var late: PurchaseKitError { PurchaseKitError(.timeout, "late", advice: "") }

    func testAnAnswerBeforeSuspendingIsKeptAndLaterAnswersAreDropped() throws {
        var calls = WaitingCalls()
        calls.open("o")
        calls.setDeadline(7, for: "o")
        let first = calls.answer("o", with: .success(.userCancelled(order)))
        XCTAssertEqual(first?.deadlineID, 7, "the store timeout is cancelled with the answer")
        XCTAssertNil(first?.resumption, "nobody is suspended yet")
        XCTAssertNil(calls.answer("o", with: .failure(late)), "a second answer is dropped")
        XCTAssertTrue(calls.isWaiting("o"))
        XCTAssertFalse(calls.isSuspended("o"))
        guard case .success(.userCancelled)? = calls.takeEarlyAnswer("o") else { return XCTFail("the first answer is kept") }
        XCTAssertFalse(calls.isWaiting("o"))
        XCTAssertNil(calls.takeEarlyAnswer("o"))
    }

    func testASuspendedCallIsResumedOnceWithTheFirstAnswer() async throws {
        var calls = WaitingCalls()
        calls.open("o")
        let result = try await suspendThrowing { continuation in
            XCTAssertNil(calls.suspend("o", on: continuation, unknown: self.late))
            XCTAssertTrue(calls.isSuspended("o"))
            let first = calls.answer("o", with: .success(.success(order)))
            XCTAssertNil(calls.answer("o", with: .failure(late)), "the call is gone once resumed")
            first?.resumption?.resume()
        }
        guard case .success = result else { return XCTFail("expected the first answer, got \(result)") }
        XCTAssertTrue(calls.orderIDs.isEmpty)
    }

    func testSuspendingAfterAnAnswerResumesAtOnce() async throws {
        var calls = WaitingCalls()
        calls.open("o")
        _ = calls.answer("o", with: .failure(late))
        do {
            _ = try await suspendThrowing { continuation in
                calls.suspend("o", on: continuation, unknown: self.late)?.resume()
            }
            XCTFail("expected the early failure")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .timeout)
        }
        XCTAssertFalse(calls.isWaiting("o"))
    }

    func testClosingACallThatNeverSuspendedReturnsItsDeadline() {
        var calls = WaitingCalls()
        calls.open("o")
        calls.setDeadline(3, for: "o")
        XCTAssertEqual(calls.close("o"), 3)
        XCTAssertNil(calls.answer("o", with: .failure(late)), "a closed call hears nothing")
    }
}
