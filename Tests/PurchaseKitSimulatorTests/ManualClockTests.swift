import XCTest
import PurchaseKit
@testable import PurchaseKitSimulator

final class ManualClockTests: XCTestCase {
    func testSleepReturnsOnlyWhenAdvancedPastTheDeadline() async throws {
        let clock = ManualClock()
        let start = clock.now
        let task = Task { try await clock.sleep(for: 60); return clock.now }
        await clock.waitForSleepers(count: 1)
        clock.advance(by: 59)
        XCTAssertEqual(clock.pendingSleepers, 1)
        clock.advance(by: 1)
        let woke = try await task.value
        XCTAssertEqual(woke, start.addingTimeInterval(60))
        XCTAssertEqual(clock.pendingSleepers, 0)
    }

    func testCancellationThrowsAndRemovesTheSleeper() async {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: 3600) }
        await clock.waitForSleepers(count: 1)
        task.cancel()
        do {
            try await task.value
            XCTFail("a cancelled sleep must throw")
        } catch {
            XCTAssertTrue(error is CancellationError)
        }
        XCTAssertEqual(clock.pendingSleepers, 0)
    }

    func testPastDeadlineReturnsAtOnceAndTimeNeverGoesBack() async throws {
        let clock = ManualClock()
        clock.advance(by: 100)
        try await clock.sleep(until: ManualClock.defaultStart)
        clock.advance(to: ManualClock.defaultStart)
        XCTAssertEqual(clock.now, ManualClock.defaultStart.addingTimeInterval(100))
    }
}
