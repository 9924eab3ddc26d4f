import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// Holds calls until the test lets them through: the state behind a hook
/// that stalls a call of the store, the order store or the verifier. It
/// counts every call that reaches it, so a test knows how many got there
/// before it moves on. ``open()`` lets every call through, those held and
/// every later one; ``releaseHeld()`` lets through those held now and holds
/// later ones again (calls let through in rounds).
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var held: [CheckedContinuation<Void, Never>] = []
        var arrivals = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = Locked(State())

    /// Counts the call, and returns once the gate lets it through.
    func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (open, reached) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                state.arrivals += 1
                let arrivals = state.arrivals
                defer { state.waiters.removeAll { $0.count <= arrivals } }
                if !state.isOpen { state.held.append(continuation) }
                return (state.isOpen, state.waiters.filter { $0.count <= arrivals }.map(\.continuation))
            }
            for waiter in reached { waiter.resume() }
            if open { continuation.resume() }
        }
    }

    /// Returns once `count` calls have reached the gate in all, counting
    /// those let through already.
    func waitForArrivals(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state -> Bool in
                if state.arrivals >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// Lets the held calls, and every later one, through.
    func open() {
        state.withLock { $0.isOpen = true }
        releaseHeld()
    }

    /// Lets every call held now through; unless the gate is open, later calls are held again.
    func releaseHeld() {
        let held = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.held = [] }
            return state.held
        }
        for call in held { call.resume() }
    }

    /// A hook that holds every store call named `name` until the gate opens.
    func holding(_ name: InterceptingPaymentQueue.Call.Name) -> InterceptingPaymentQueue.Hook {
        { call in
            if call.name == name { await self.pass() }
            return .proceed
        }
    }
}

/// Counts the calls in flight, in all and per key, and keeps the highest
/// counts seen: the state behind a hook that measures concurrency.
final class InFlightCounter: Sendable {
    private struct State {
        var running: [String: String] = [:] // id -> key
        var next = 0
        var maximum = 0
        var maximumPerKey = 0
        var calls = 0
    }
    private let state = Locked(State())

    /// The most calls in flight at once.
    var maximum: Int { state.withLock { $0.maximum } }
    /// The most calls of one key in flight at once.
    var maximumPerKey: Int { state.withLock { $0.maximumPerKey } }
    /// The calls counted since the start or the last reset.
    var calls: Int { state.withLock { $0.calls } }

    /// Starts counting afresh.
    func reset() { state.withLock { $0 = State() } }

    /// Counts call `id` of `key` in flight from now.
    func enter(_ key: String, id: String) {
        state.withLock { state in
            state.running[id] = key
            state.calls += 1
            state.maximum = max(state.maximum, state.running.count)
            state.maximumPerKey = max(state.maximumPerKey, state.running.values.filter { $0 == key }.count)
        }
    }

    /// Counts call `id` out; nothing when it was counted out already.
    func leave(id: String) { state.withLock { _ = $0.running.removeValue(forKey: id) } }

    /// Counts a call of `key` that starts now, and returns the decision that
    /// lets it through and counts it out when the wrapped value has answered.
    func enter<Answer>(_ key: String = "") -> InterceptionDecision<Answer> {
        let id = state.withLock { state -> String in
            state.next += 1
            return "call-\(state.next)"
        }
        enter(key, id: id)
        return .proceedThen { _ in self.leave(id: id) }
    }

    /// A verifier over `base` whose every call is counted in flight here, and
    /// held until `hold` returns before it reaches `base`.
    func verifier(wrapping base: any ReceiptVerifier,
                  holding hold: @escaping @Sendable () async -> Void) -> InterceptingVerifier {
        InterceptingVerifier(wrapping: base) { _ in
            let decision: InterceptingVerifier.Decision = self.enter()
            await hold()
            return decision
        }
    }
}
