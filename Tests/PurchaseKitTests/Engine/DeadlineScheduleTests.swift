import Foundation
@_spi(Testing) @testable import PurchaseKit
import PurchaseKitSimulator
import XCTest

/// The engine's one timer schedule: due jobs in deadline order (ties in the
/// order they were set), cancelled ones never, and a heap that does not keep
/// what was cancelled.
final class DeadlineScheduleTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_000_000)

    func testDueJobsComeEarliestFirstAndTiesInTheOrderSet() {
        var schedule = DeadlineSchedule<String>()
        _ = schedule.add(start.addingTimeInterval(30), "c")
        _ = schedule.add(start.addingTimeInterval(10), "a")
        _ = schedule.add(start.addingTimeInterval(20), "b1")
        _ = schedule.add(start.addingTimeInterval(20), "b2")
        _ = schedule.add(start.addingTimeInterval(40), "later")
        XCTAssertEqual(schedule.earliest, start.addingTimeInterval(10))
        XCTAssertEqual(schedule.takeDue(at: start.addingTimeInterval(5)), [])
        XCTAssertEqual(schedule.takeDue(at: start.addingTimeInterval(30)), ["a", "b1", "b2", "c"])
        XCTAssertEqual(schedule.earliest, start.addingTimeInterval(40))
        XCTAssertEqual(schedule.count, 1)
    }

    func testShiftedTimersKeepTheirOrderAndTheTimeLeft() {
        var schedule = DeadlineSchedule<String>()
        _ = schedule.add(start.addingTimeInterval(20), "b")
        let cancelled = schedule.add(start.addingTimeInterval(5), "cancelled")
        _ = schedule.add(start.addingTimeInterval(10), "a")
        _ = schedule.add(nil, "at shutdown")
        schedule.cancel(cancelled)
        let yearBack = -365 * 24 * 3600.0
        schedule.shift(by: yearBack)
        XCTAssertEqual(schedule.earliest, start.addingTimeInterval(yearBack + 10))
        XCTAssertEqual(schedule.takeDue(at: start.addingTimeInterval(yearBack + 15)), ["a"])
        XCTAssertEqual(schedule.takeDue(at: start.addingTimeInterval(yearBack + 20)), ["b"])
        XCTAssertEqual(schedule.takeAll(), ["at shutdown"])
    }

    func testACancelledJobNeverComesDueAndIsNotTheEarliest() {
        var schedule = DeadlineSchedule<String>()
        let first = schedule.add(start.addingTimeInterval(1), "first")
        _ = schedule.add(start.addingTimeInterval(2), "second")
        let third = schedule.add(start.addingTimeInterval(3), "third")
        schedule.cancel(first)
        XCTAssertEqual(schedule.earliest, start.addingTimeInterval(2), "the earliest live timer, not the cancelled one")
        schedule.cancel(third)
        schedule.cancel(third) // twice changes nothing
        XCTAssertEqual(schedule.takeDue(at: start.addingTimeInterval(10)), ["second"])
        XCTAssertNil(schedule.earliest)
        XCTAssertEqual(schedule.count, 0)
    }

    func testATimerWithoutADeadlineNeverComesDueAndShutdownTakesEveryTimerInTheOrderSet() {
        var schedule = DeadlineSchedule<String>()
        _ = schedule.add(start.addingTimeInterval(20), "later")
        _ = schedule.add(nil, "until shutdown")
        let cancelled = schedule.add(nil, "cancelled")
        _ = schedule.add(start.addingTimeInterval(10), "sooner")
        schedule.cancel(cancelled)
        XCTAssertEqual(schedule.earliest, start.addingTimeInterval(10), "a timer without a deadline is never the earliest")
        XCTAssertEqual(schedule.takeDue(at: start.addingTimeInterval(1_000_000)), ["sooner", "later"])
        _ = schedule.add(start.addingTimeInterval(5), "last")
        XCTAssertEqual(schedule.takeAll(), ["until shutdown", "last"], "in the order they were set")
        XCTAssertEqual(schedule.count, 0)
        XCTAssertNil(schedule.earliest)
    }

    func testManyCancelledTimersLeaveTheOthersInOrder() {
        // Purchases set timeouts and cancel them a moment later: thousands of
        // cancelled entries must not disturb the order of the live ones.
        var schedule = DeadlineSchedule<Int>()
        var generator = SeededRandomNumberGenerator(seed: 7)
        var live: [(Date, Int)] = []
        for index in 0..<5_000 {
            let deadline = start.addingTimeInterval(Double(generator.next() % 1_000))
            let id = schedule.add(deadline, index)
            if index % 10 == 0 { live.append((deadline, index)) } else { schedule.cancel(id) }
        }
        XCTAssertEqual(schedule.count, live.count)
        let expected = live.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.1)
        XCTAssertEqual(schedule.takeDue(at: start.addingTimeInterval(1_000)), expected)
    }
}

/// The engine on one schedule: twenty purchases waiting for the store each
/// have a store timeout and a payment expiry, and one task sleeps for all.
final class EngineTimerTests: XCTestCase {
    func testWaitingPurchasesShareOneSleeper() async throws {
        let world = World()
        var configuration = world.configuration(storeTimeout: 30, verificationTimeout: 10)
        configuration.limits.maximumConcurrentPurchases = 20
        configuration.limits.paymentExpiry = 3_600
        let engine = try await world.engine(configuration)
        await world.store.setHoldsUpdates(true)
        let events = await engine.events()
        let answered = Locked(0)
        let calls = (0..<20).map { index in
            Task {
                defer { answered.withLock { $0 += 1 } }
                return try await engine.purchase(productID: Catalog.coins, user: "user-\(index)")
            }
        }
        var purchasing = 0
        for await event in events {
            if case .orderChanged(let order, _) = event, order.status == .purchasing { purchasing += 1 }
            if purchasing == 20 { break }
        }
        await engine.waitUntilIdle()
        XCTAssertEqual(world.clock.pendingSleepers, 1, "one sleeper for 20 store timeouts and 20 expiries")
        let expiries = await engine.scheduledRetries
        XCTAssertEqual(expiries.count, 20, "each order's expiry is scheduled")

        // The store timeout answers every call, at its deadline and not before.
        world.clock.advance(by: 29)
        await engine.waitUntilIdle()
        XCTAssertEqual(answered.withLock { $0 }, 0)
        world.clock.advance(by: 1)
        for call in calls {
            let result = try await call.value
            guard case .pending(_, .storeTimeout) = result else { return XCTFail("\(result)") }
        }
        XCTAssertEqual(world.clock.pendingSleepers, 1, "the expiries are still set")
    }
}
