import Foundation
@testable import PurchaseKit
import XCTest

/// The lock behind the engine's shared state: one value for every copy, and
/// no update lost when threads race for it.
final class LockedTests: XCTestCase {
    func testCopiesShareOneValue() {
        let first = Locked([String]())
        let copy = first
        copy.withLock { $0.append("from the copy") }
        first.withLock { $0.append("from the first") }
        XCTAssertEqual(copy.withLock { $0 }, ["from the copy", "from the first"])
    }

    func testNoIncrementIsLostAcrossThreads() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        XCTAssertEqual(counter.withLock { $0 }, 80_000)
    }

    func testAThrowingBodyReleasesTheLockAndKeepsItsChanges() {
        struct Refused: Error {}
        let value = Locked(1)
        XCTAssertThrowsError(try value.withLock { (number: inout Int) throws -> Void in
            number = 2
            throw Refused()
        })
        // The lock was released: taking it again does not deadlock.
        XCTAssertEqual(value.withLock { $0 }, 2)
    }

    func testTheValueIsReleasedWithTheLastCopy() {
        final class Probe: Sendable {}
        weak var probe: Probe?
        do {
            let made = Probe()
            probe = made
            let locked = Locked([made])
            let copy = locked
            XCTAssertNotNil(copy.withLock { $0.first })
        }
        XCTAssertNil(probe, "the value must go when the last copy does")
    }
}
