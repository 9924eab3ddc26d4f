import Foundation
@testable import PurchaseKit
import XCTest

/// The per-order locks: a held key refuses a second taker, a release hands
/// the lock to the first waiter or frees it, and thousands of keys taken and
/// given back around held ones never free a held one.
final class KeyedLocksTests: XCTestCase {
    func testAHeldKeyRefusesUntilReleased() {
        var locks = KeyedLocks()
        XCTAssertTrue(locks.tryAcquire("a"))
        XCTAssertFalse(locks.tryAcquire("a"), "held")
        XCTAssertTrue(locks.tryAcquire("b"), "another key is free")
        XCTAssertNil(locks.release("a"), "nobody waits")
        XCTAssertTrue(locks.tryAcquire("a"), "free again")
        XCTAssertFalse(locks.tryAcquire("b"))
    }

    func testManyKeysComingAndGoingLeaveEveryHeldKeyHeld() {
        var locks = KeyedLocks()
        let kept = (0..<40).map { "kept-\($0)" }
        for key in kept { XCTAssertTrue(locks.tryAcquire(key)) }
        // Thousands of keys taken and given back beside the held ones.
        for round in 0..<5_000 {
            let key = "order-\(round)"
            XCTAssertTrue(locks.tryAcquire(key))
            XCTAssertNil(locks.release(key))
            // A release of a key nobody holds changes nothing.
            XCTAssertNil(locks.release("never-\(round)"))
        }
        for key in kept { XCTAssertFalse(locks.tryAcquire(key), "\(key) is still held") }
        for key in kept { XCTAssertNil(locks.release(key)) }
        for key in kept { XCTAssertTrue(locks.tryAcquire(key), "\(key) was freed") }
        XCTAssertTrue(locks.tryAcquire("order-4999"), "a freed key can be taken again")
    }

    func testAReleaseHandsTheLockToTheFirstWaiterInTurn() async {
        let locks = Locked(KeyedLocks())
        let order = Locked<[String]>([])
        XCTAssertTrue(locks.withLock { $0.tryAcquire("a") })
        let first = Task {
            await withCheckedContinuation { continuation in locks.withLock { $0.enqueue("a", continuation) } }
            order.withLock { $0.append("first") }
        }
        while locks.withLock({ $0.waitingCount }) < 1 { await Task.yield() }
        let second = Task {
            await withCheckedContinuation { continuation in locks.withLock { $0.enqueue("a", continuation) } }
            order.withLock { $0.append("second") }
        }
        while locks.withLock({ $0.waitingCount }) < 2 { await Task.yield() }
        let handedToFirst = locks.withLock { $0.release("a") }
        XCTAssertNotNil(handedToFirst)
        XCTAssertFalse(locks.withLock { $0.tryAcquire("a") }, "handed over, not freed: nobody barges in")
        handedToFirst?.resume()
        await first.value
        let handedToSecond = locks.withLock { $0.release("a") }
        XCTAssertNotNil(handedToSecond)
        handedToSecond?.resume()
        await second.value
        XCTAssertEqual(order.withLock { $0 }, ["first", "second"])
        XCTAssertNil(locks.withLock { $0.release("a") }, "the last holder frees it")
        XCTAssertTrue(locks.withLock { $0.tryAcquire("a") })
    }
}
