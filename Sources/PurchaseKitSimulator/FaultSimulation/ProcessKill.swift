import Foundation
import PurchaseKit

/// A simulated app process that can die at a chosen outside call.
///
/// Every call the engine makes to the world (order store, store, verifier)
/// goes through the process. Writes and store or verifier calls are
/// *counted*; a kill point names one of them by its number and dies just
/// before it (it has no effect) or just after it (its effect happened, the
/// engine never hears back). From then on every call fails and has no
/// effect, and the engine is detached from the store, exactly as if the
/// process were gone; the world lives on for the next process.
final class ProcessKill: Sendable {
    /// The error every call of a dead process fails with.
    struct Killed: Error, Sendable {}

    /// Before or after the counted call.
    enum Timing: String, Sendable, Hashable, Codable {
        case before, after
    }

    /// Where to die: the `call`-th counted call (1-based), before or after it.
    struct Point: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The number of the counted call.
        var call: Int
        /// Before or after it.
        var timing: Timing

        init(call: Int, timing: Timing) {
            self.call = call
            self.timing = timing
        }

        var description: String { "\(timing.rawValue) call #\(call)" }
    }

    private enum Decision {
        case proceed, reject, dieBefore, proceedThenDie
    }

    private struct State {
        var dead = false
        var detached = false
        var calls = 0
        var inFlight = 0
        var armed: Point?
        var kinds: [String] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Locked<State>
    private let onDeath: @Sendable () async -> Void

    /// A process that dies at `point` (nil: only counts), calling `onDeath`
    /// (detach from the store) before anything else happens.
    init(at point: Point? = nil, onDeath: @escaping @Sendable () async -> Void) {
        state = Locked(State(armed: point))
        self.onDeath = onDeath
    }

    /// Whether the process has died.
    var isDead: Bool { state.withLock { $0.dead } }

    /// How many counted calls the process made.
    var callCount: Int { state.withLock { $0.calls } }

    /// The kinds of the counted calls, in order (`save`, `verify`...).
    var callKinds: [String] { state.withLock { $0.kinds } }

    /// Dies at the `offset`-th counted call from now (1 is the next one).
    func arm(offset: Int, timing: Timing) {
        state.withLock { $0.armed = Point(call: $0.calls + offset, timing: timing) }
    }

    /// Disarms a point that was not reached.
    func disarm() {
        state.withLock { $0.armed = nil }
    }

    /// Kills the process now, between calls.
    func killNow() async {
        let first = state.withLock { s -> Bool in
            defer { s.dead = true }
            return !s.dead
        }
        if first { await die() }
    }

    /// Returns once the process is dead, detached, and no call it started is still running.
    func waitUntilGone() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let gone = state.withLock { s -> Bool in
                if s.dead && s.detached && s.inFlight == 0 { return true }
                s.waiters.append(continuation)
                return false
            }
            if gone { continuation.resume() }
        }
    }

    /// A call that is not counted (a read): fails once dead.
    func check() throws {
        if isDead { throw Killed() }
    }

    /// A counted call named `kind`.
    func perform<T>(_ kind: String, _ body: () async throws -> T) async throws -> T {
        let decision = state.withLock { s -> Decision in
            if s.dead { return .reject }
            s.calls += 1
            s.kinds.append(kind)
            if let armed = s.armed, armed.call == s.calls {
                s.dead = true
                if armed.timing == .before { return .dieBefore }
                s.inFlight += 1
                return .proceedThenDie
            }
            s.inFlight += 1
            return .proceed
        }
        switch decision {
        case .reject:
            throw Killed()
        case .dieBefore:
            await die()
            throw Killed()
        case .proceedThenDie:
            // Detached first: what the call causes in the store reaches no dead observer.
            await die()
            _ = try? await body()
            endCall()
            throw Killed()
        case .proceed:
            do {
                let value = try await body()
                endCall()
                return value
            } catch {
                endCall()
                throw error
            }
        }
    }

    private func die() async {
        await onDeath()
        resumeWaiters { $0.detached = true }
    }

    private func endCall() {
        resumeWaiters { $0.inFlight -= 1 }
    }

    private func resumeWaiters(_ change: (inout State) -> Void) {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            change(&s)
            guard s.dead && s.detached && s.inFlight == 0 else { return [] }
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in ready { waiter.resume() }
    }
}
