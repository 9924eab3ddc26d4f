import Foundation
import PurchaseKit

/// A clock that moves only when told to, so that latency, timeouts, retries
/// and a year of renewals run in milliseconds and the same way every time.
///
/// `advance(by:)` moves time and resumes, in deadline order, every sleeper
/// whose deadline has come. It does not wait for the resumed tasks to run;
/// await what they produce (an event, a result) or the engine's idle point.
public final class ManualClock: PurchaseClock {
    private struct Sleeper {
        let id: UInt64
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var countWaiters: [(count: Int, deadline: Date?, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Locked<State>

    /// 2026-01-01 00:00:00 UTC: a fixed start, so that traces do not depend on the day a test runs.
    public static let defaultStart = Date(timeIntervalSince1970: 1_767_225_600)

    /// Creates a clock standing at `start`.
    public init(start: Date = ManualClock.defaultStart) {
        state = Locked(State(now: start))
    }

    public var now: Date { state.withLock { $0.now } }

    /// How many tasks are sleeping on this clock. A test that ends with
    /// sleepers left usually forgot to advance, or leaked a task.
    public var pendingSleepers: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline anyone sleeps until.
    public var nextDeadline: Date? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    public func sleep(until deadline: Date) async throws {
        try Task.checkCancellation()
        let id: UInt64 = state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Cancelled after the check above but before this registration, the
                // cancellation handler found no sleeper to resume: check again under
                // the lock, or the sleeper would wait for its deadline.
                let (outcome, woken) = state.withLock { s -> (Bool?, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled { return (false, []) }
                    if deadline <= s.now { return (true, []) }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (nil, Self.takeSatisfiedWaiters(&s))
                }
                switch outcome {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
                for waiter in woken { waiter.resume() }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { s in
                guard let index = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `interval` seconds and wakes every sleeper whose deadline has come.
    public func advance(by interval: TimeInterval) {
        advance(to: now.addingTimeInterval(max(0, interval)))
    }

    /// Moves time to `date` (never backwards) and wakes every sleeper whose deadline has come.
    public func advance(to date: Date) {
        let due: [Sleeper] = state.withLock { s in
            if date > s.now { s.now = date }
            let due = s.sleepers.filter { $0.deadline <= s.now }
            s.sleepers.removeAll { $0.deadline <= s.now }
            return due.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves time to the earliest sleeper's deadline and wakes it; returns false when nobody sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        guard let next = nextDeadline else { return false }
        advance(to: next)
        return true
    }

    /// Returns once at least `count` tasks are sleeping on this clock: the way
    /// to know that a task reached its sleep before advancing, without polling.
    public func waitForSleepers(count: Int) async {
        await waitForSleepers(count: count, until: nil)
    }

    /// Returns once at least `count` tasks sleep until exactly `deadline`:
    /// the way to know that the sleeps a test is about (a server's latency,
    /// say) have begun, whatever other timers sleep on the clock meanwhile.
    public func waitForSleepers(count: Int, until deadline: Date?) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if Self.sleeperCount(s, until: deadline) >= count { return true }
                s.countWaiters.append((count, deadline, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func sleeperCount(_ s: State, until deadline: Date?) -> Int {
        guard let deadline else { return s.sleepers.count }
        return s.sleepers.reduce(0) { $0 + ($1.deadline == deadline ? 1 : 0) }
    }

    private static func takeSatisfiedWaiters(_ s: inout State) -> [CheckedContinuation<Void, Never>] {
        var ready: [CheckedContinuation<Void, Never>] = []
        var waiting: [(count: Int, deadline: Date?, continuation: CheckedContinuation<Void, Never>)] = []
        for waiter in s.countWaiters {
            if sleeperCount(s, until: waiter.deadline) >= waiter.count {
                ready.append(waiter.continuation)
            } else {
                waiting.append(waiter)
            }
        }
        s.countWaiters = waiting
        return ready
    }
}
