@testable import PurchaseKit
import XCTest

/// The one wait a batch of lane jobs (launch recovery, a retry trigger) ends with.
final class CountdownTests: XCTestCase {
    func testTheWaitEndsWithTheLastJobNotBefore() async {
        let countdown = Countdown(3)
        let ended = Locked(false)
        let waiter = Task {
            await countdown.wait()
            ended.withLock { $0 = true }
        }
        while !countdown.hasWaiter { await Task.yield() }
        countdown.jobEnded()
        countdown.jobEnded()
        // Give the waiter every chance to end early: it must still be waiting.
        for _ in 0..<50 { await Task.yield() }
        XCTAssertFalse(ended.withLock { $0 }, "the wait ended with a job still running")
        countdown.jobEnded()
        await waiter.value
        XCTAssertTrue(ended.withLock { $0 })
    }

    func testAnEmptyBatchOrOneAlreadyEndedDoesNotWait() async {
        await Countdown(0).wait()
        let countdown = Countdown(2)
        countdown.jobEnded()
        countdown.jobEnded()
        await countdown.wait()
    }
}
