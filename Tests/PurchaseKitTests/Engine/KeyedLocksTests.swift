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

    func testAReleaseHandsTheLockToTheFirstWaiterOfItsKeyInTurn() async throws {
        let locks = Locked(KeyedLocks())
        let order = Locked<[String]>([])
        XCTAssertTrue(locks.withLock { $0.tryAcquire("a") })
        XCTAssertTrue(locks.withLock { $0.tryAcquire("b") })
        func waiter(_ key: String, _ name: String) -> Task<Void, Never> {
            Task {
                await suspend { continuation in locks.withLock { $0.enqueue(key, continuation) } }
                order.withLock { $0.append(name) }
            }
        }
        let first = waiter("a", "first on a")
        try await waitUntil { locks.withLock { $0.waitingCount } == 1 }
        let second = waiter("a", "second on a")
        try await waitUntil { locks.withLock { $0.waitingCount } == 2 }
        let onB = waiter("b", "on b")
        try await waitUntil { locks.withLock { $0.waitingCount } == 3 }

        // Each release wakes one waiter of its own key, first come first served.
        for (key, expected) in [("a", ["first on a"]), ("b", ["first on a", "on b"]), ("a", ["first on a", "on b", "second on a"])] {
            let next = locks.withLock { $0.release(key) }
            XCTAssertNotNil(next, "a waiter of \(key) takes the lock")
            XCTAssertFalse(locks.withLock { $0.tryAcquire(key) }, "handed over, not freed: nobody barges in")
            next?.resume()
            try await waitUntil { order.withLock { $0.count } == expected.count }
            XCTAssertEqual(order.withLock { $0 }, expected)
        }
        await first.value
        await second.value
        await onB.value
        XCTAssertNil(locks.withLock { $0.release("a") }, "the last holder frees it")
        XCTAssertNil(locks.withLock { $0.release("b") })
        XCTAssertTrue(locks.withLock { $0.tryAcquire("a") })
        XCTAssertTrue(locks.withLock { $0.tryAcquire("b") })
    }

    /// Yields until `condition` holds; fails, instead of hanging, after many tries.
    private func waitUntil(_ condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) async throws {
        for _ in 0..<100_000 {
            if condition() { return }
            await Task.yield()
        }
        XCTFail("The condition never held", file: file, line: line)
        throw CancellationError()
    }
}
