/// A count of jobs still to end, and one caller waiting for it to reach
/// zero: a batch of many jobs costs one object and one wait, not one each.
final class Countdown: Sendable {
    private struct State {
        var remaining: Int
        var waiter: Suspension<Void, Never>?
    }

    private let state: Locked<State>

    init(_ count: Int) {
        state = Locked(State(remaining: count))
    }

    /// One job ended (or will never run). The last one wakes the waiter.
    func jobEnded() {
        let waiter = state.withLock { s -> Suspension<Void, Never>? in
            s.remaining -= 1
            guard s.remaining <= 0 else { return nil }
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    /// Whether a caller is waiting now.
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }

    /// Returns once every job has ended. Call it once.
    func wait() async {
        await suspend { continuation in
            let done = state.withLock { s -> Bool in
                if s.remaining > 0 { s.waiter = continuation }
                return s.remaining <= 0
            }
            if done { continuation.resume() }
        }
    }
}
