import XCTest
@testable import PurchaseKit

/// The retry schedule on its own: how delays grow, where they stop, how far
/// jitter spreads them, and which policies are refused.
final class RetryPolicyTests: XCTestCase {
    private let policy = RetryPolicy(initialDelay: 2, multiplier: 3, maximumDelay: 100, jitter: 0.25, attemptBudget: 5)

    func testTheDelayGrowsByTheMultiplierFromTheInitialDelayAndStopsAtTheMaximum() {
        XCTAssertEqual(policy.baseDelay(afterAttempt: 1), policy.initialDelay)
        var reachedTheMaximum = false
        for attempt in 2...20 {
            let previous = policy.baseDelay(afterAttempt: attempt - 1), delay = policy.baseDelay(afterAttempt: attempt)
            XCTAssertLessThanOrEqual(delay, policy.maximumDelay, "attempt \(attempt)")
            if previous * policy.multiplier < policy.maximumDelay {
                XCTAssertEqual(delay, previous * policy.multiplier, accuracy: 1e-9, "attempt \(attempt) grows")
            } else {
                XCTAssertEqual(delay, policy.maximumDelay, "attempt \(attempt) is capped")
                reachedTheMaximum = true
            }
        }
        XCTAssertTrue(reachedTheMaximum, "twenty attempts reach the cap")
        XCTAssertEqual(policy.baseDelay(afterAttempt: .max), policy.maximumDelay, "a huge attempt count stays capped")
    }

    func testJitterSpreadsADelayBothWaysButNeverBeyondItsFraction() {
        var random = SeededRandomNumberGenerator(seed: 42)
        let attempt = 3
        let base = policy.baseDelay(afterAttempt: attempt)
        let low = base * (1 - policy.jitter), high = base * (1 + policy.jitter)
        let delays = (0..<2000).map { _ in policy.delay(afterAttempt: attempt, using: &random) }
        XCTAssertEqual(delays.filter { !(low...high).contains($0) }, [], "every delay within \(low)...\(high)")
        let spread = base * policy.jitter
        XCTAssertLessThan(delays.min() ?? base, base - spread / 2, "some delays are shorter")
        XCTAssertGreaterThan(delays.max() ?? base, base + spread / 2, "some delays are longer")
    }

    func testWithoutJitterEveryDelayIsTheBaseDelay() {
        var unjittered = policy
        unjittered.jitter = 0
        var random = SeededRandomNumberGenerator(seed: 7)
        for attempt in 1...8 {
            XCTAssertEqual(unjittered.delay(afterAttempt: attempt, using: &random), unjittered.baseDelay(afterAttempt: attempt))
        }
    }

    func testAJitterOfAWholeDelayOrMoreIsRefused() {
        // A jitter of 1 could draw a delay of zero: a retry storm against a server that is down.
        for jitter in [1.0, 1.5, -0.1] {
            var bad = policy
            bad.jitter = jitter
            XCTAssertThrowsError(try bad.validate(), "jitter \(jitter)") { error in
                XCTAssertEqual((error as? PurchaseKitError)?.code, .invalidConfiguration)
            }
        }
        for jitter in [0.0, 0.99] {
            var good = policy
            good.jitter = jitter
            XCTAssertNoThrow(try good.validate(), "jitter \(jitter)")
        }
    }

    func testTheOrderIsFlaggedOnTheBudgetsLastAttemptAndNotBefore() {
        let machine = OrderStateMachine(retryPolicy: RetryPolicy(attemptBudget: 3, needsAttentionInterval: 3600))
        let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
        var order = Order(id: "o", productID: "p", userID: "u", token: "tok", createdAt: now)
        order.status = .purchased
        order.transaction = StoreTransaction(id: "t1", productID: "p", purchaseDate: now, orderToken: "tok")
        for attempt in 1..<machine.retryPolicy.attemptBudget {
            let step = machine.step(order, on: .verified(.retryLater(reason: "503")), now: now, retryDelay: 9)
            XCTAssertEqual(step.order.verificationAttempts, attempt)
            XCTAssertEqual(step.order.status, .purchased, "attempt \(attempt) is within the budget")
            XCTAssertEqual(step.actions, [.persist, .scheduleRetry(at: now.addingTimeInterval(9))], "attempt \(attempt)")
            order = step.order
        }
        let last = machine.step(order, on: .verified(.retryLater(reason: "503")), now: now, retryDelay: 9)
        XCTAssertEqual(last.order.status, .needsAttention, "the budget's last attempt flags the order")
        XCTAssertEqual(last.order.verificationAttempts, machine.retryPolicy.attemptBudget)
        XCTAssertEqual(last.order.nextAttemptAt, machine.retryPolicy.needsAttentionInterval.map { now.addingTimeInterval($0) },
                       "still retried, less often")
    }
}
