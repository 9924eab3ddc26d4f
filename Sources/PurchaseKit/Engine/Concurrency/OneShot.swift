/// A result that arrives once, from whichever of several tasks comes first,
/// and one caller waiting for it. Later results are ignored.
final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiter: Suspension<Value, any Error>?
    }

    private let state = Locked(State())

    /// Offers a result; only the first one counts. Returns whether it was the first.
    @discardableResult
    func resolve(_ result: Result<Value, any Error>) -> Bool {
        let (first, waiter) = state.withLock { s -> (Bool, Suspension<Value, any Error>?) in
            guard s.result == nil else { return (false, nil) }
            s.result = result
            defer { s.waiter = nil }
            return (true, s.waiter)
        }
        waiter?.resume(with: result)
        return first
    }

    /// The first result offered, waiting for it if need be. Call it once.
    ///
    /// It always suspends, even when the result is already there. A shortcut
    /// that returned that result without a continuation was tried: with this
    /// toolchain, in an optimized build, the engine then went on off its actor
    /// after `withTimeout` (the thread sanitizer saw two threads in the
    /// engine's timer schedule, and 64 purchases in flight on the journal
    /// store crashed; `PurchaseEngineJournalStoreTests` in a release build
    /// catches it).
    func value() async throws -> Value {
        try await suspendThrowing { continuation in
            let ready = state.withLock { s -> Result<Value, any Error>? in
                if s.result == nil { s.waiter = continuation }
                return s.result
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
