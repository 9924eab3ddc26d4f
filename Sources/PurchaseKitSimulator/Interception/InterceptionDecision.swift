import PurchaseKit

/// What an intercepting decorator's hook decides about one call: let it
/// through to the wrapped value, fail it, or answer it instead.
///
/// `Answer` is the decorator's type of answers: ``InterceptingOrderStore/Answer``,
/// ``InterceptingPaymentQueue/Answer`` or, for ``InterceptingVerifier``, a
/// ``ReceiptVerdict``.
public enum InterceptionDecision<Answer: Sendable>: Sendable {
    /// Let the call through to the wrapped value, unchanged.
    case proceed
    /// Let the call through, then run `after` with what the wrapped value
    /// answered or threw, before the caller sees it. When `after` throws, the
    /// call throws that error instead, although the wrapped value already did
    /// the work (a process that dies after a write, a reply that is lost).
    case proceedThen(_ after: @Sendable (Result<Answer, any Error>) async throws -> Void)
    /// Do not reach the wrapped value: the call throws `error`.
    case fail(any Error)
    /// Do not reach the wrapped value: the call returns `answer`. The answer
    /// must be of the call's kind (for instance an order for a lookup by id);
    /// another kind stops the program, as a mistake in the test.
    case answer(Answer)
}

/// The hook, the record of calls and the waiters of one intercepting decorator.
final class Interceptor<Call: Sendable, Answer: Sendable>: Sendable {
    typealias Hook = @Sendable (Call) async throws -> InterceptionDecision<Answer>

    private struct Waiter: Sendable {
        let count: Int
        let matches: @Sendable (Call) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State: Sendable {
        var hook: Hook?
        var calls: [Call] = []
        var waiters: [Waiter] = []
    }

    private let state: Locked<State>

    init(hook: Hook?) { state = Locked(State(hook: hook)) }

    /// The calls made so far, oldest first.
    var calls: [Call] { state.withLock { $0.calls } }

    /// Replaces the hook; nil lets every call through.
    func setHook(_ hook: Hook?) { state.withLock { $0.hook = hook } }

    /// Forgets the calls recorded so far.
    func clearCalls() { state.withLock { $0.calls = [] } }

    /// Returns once `count` recorded calls match `matches`.
    func waitForCalls(_ count: Int, where matches: @escaping @Sendable (Call) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state -> Bool in
                if state.calls.lazy.filter(matches).count >= count { return true }
                state.waiters.append(Waiter(count: count, matches: matches, continuation: continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// Records `call`, wakes the waiters it satisfies, and returns the hook.
    private func record(_ call: Call) -> Hook? {
        let (hook, ready) = state.withLock { state -> (Hook?, [Waiter]) in
            state.calls.append(call)
            var ready: [Waiter] = []
            state.waiters.removeAll { waiter in
                guard state.calls.lazy.filter(waiter.matches).count >= waiter.count else { return false }
                ready.append(waiter)
                return true
            }
            return (state.hook, ready)
        }
        for waiter in ready { waiter.continuation.resume() }
        return hook
    }

    /// Records `call`, asks the hook, and does what it decides: `forward`
    /// reaches the wrapped value; `wrap` and `unwrap` convert between the
    /// call's result and the decorator's answers.
    func perform<T>(_ call: Call, forward: () async throws -> T,
                    wrap: (T) -> Answer, unwrap: (Answer) -> T?) async throws -> T {
        let decision = try await record(call)?(call) ?? .proceed
        switch decision {
        case .proceed:
            return try await forward()
        case .proceedThen(let after):
            let outcome: Result<T, any Error>
            do { outcome = .success(try await forward()) } catch { outcome = .failure(error) }
            try await after(outcome.map(wrap))
            return try outcome.get()
        case .fail(let error):
            throw error
        case .answer(let answer):
            guard let value = unwrap(answer) else {
                preconditionFailure("The hook answered \(answer) to \(call), which expects another kind of answer.")
            }
            return value
        }
    }
}
