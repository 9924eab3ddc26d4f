import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// The engine's timers run on the phone's wall clock, which the user can set
/// forward while the app runs. A jump forward must not hold back the timers
/// set after it behind one set before it.
final class ClockJumpTimerTests: XCTestCase {
    func testAStoreTimeoutSetAfterTheClockJumpedForwardStillEndsTheWait() async throws {
        let world = World()
        let device = DeviceClock(world: world.clock)
        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.add))
        var configuration = world.configuration(queue: stalling, storeTimeout: 600)
        configuration.clock = device
        configuration.limits.paymentExpiry = 24 * 3600
        let engine = try await world.engine(configuration)

        // Alice's payment never reaches the store: her call is answered at the
        // store timeout, and the engine sleeps until her payment's expiry.
        let alice = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await stalling.waitForCalls(.add)
        world.clock.advance(by: 600)
        guard case .pending(_, .storeTimeout) = try await alice.value else { return XCTFail("alice hears the store timeout") }

        // The user sets the date a year ahead, then bob buys: the store does not answer either.
        device.set(offset: 365 * 24 * 3600)
        let answered = expectation(description: "bob's call is answered at his store timeout")
        let bob = Task {
            let result = try await engine.purchase(productID: Catalog.pro, user: "bob")
            answered.fulfill()
            return result
        }
        await stalling.waitForCalls(.add, count: 2)
        world.clock.advance(by: 600)
        // Bounded only so that a regression fails instead of hanging: the
        // answer comes as soon as the engine runs the timeout.
        await fulfillment(of: [answered], timeout: 30)

        // Whatever happened, let everything go.
        world.clock.advance(by: 24 * 3600)
        gate.open()
        guard case .pending(_, .storeTimeout) = try await bob.value else { return XCTFail("bob hears the store timeout") }
        await engine.waitUntilIdle()
        await engine.shutdown()
    }

    func testStoreTimeoutsStillEndTheWaitsWhenTheClockIsSetBackAYear() async throws {
        let world = World()
        let device = DeviceClock(world: world.clock)
        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.add))
        var configuration = world.configuration(queue: stalling, storeTimeout: 600)
        configuration.clock = device
        let engine = try await world.engine(configuration)
        let start = world.clock.now

        // Alice's payment never reaches the store; five minutes later the user
        // sets the date a year back, and bob's payment does not reach it either.
        let answered = expectation(description: "both calls are answered within their store timeout")
        answered.expectedFulfillmentCount = 2
        func buy(_ product: String, as user: String) -> (String, Task<(PurchaseResult, Date), any Error>) {
            (user, Task {
                let result = try await engine.purchase(productID: product, user: user)
                answered.fulfill()
                return (result, world.clock.now)
            })
        }
        var calls = [buy(Catalog.coins, as: "alice")]
        await stalling.waitForCalls(.add)
        world.clock.advance(by: 300)
        device.set(offset: -365 * 24 * 3600)
        calls.append(buy(Catalog.pro, as: "bob"))
        await stalling.waitForCalls(.add, count: 2)
        world.clock.advance(by: 600)
        // Bounded only so that a regression fails instead of hanging.
        await fulfillment(of: [answered], timeout: 30)

        world.clock.advance(by: 2 * 365 * 24 * 3600)
        gate.open()
        for (user, call) in calls {
            let (result, answeredAt) = try await call.value
            guard case .pending(_, .storeTimeout) = result else { return XCTFail("\(user): \(result)") }
            XCTAssertLessThanOrEqual(answeredAt.timeIntervalSince(start), 900, "\(user) waits no longer than a store timeout after the jump")
        }
        await engine.waitUntilIdle()
        await engine.shutdown()
    }
}
