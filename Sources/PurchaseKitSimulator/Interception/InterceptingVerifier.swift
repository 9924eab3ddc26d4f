import PurchaseKit

/// A receipt verifier that passes every request to another one, and lets a
/// test intercept them: answer a verdict of its own, fail the call, hold it
/// until released, lose the reply after the server applied the request. It
/// also records every request, in order.
///
/// Safe to call from many tasks at once; the hook runs on the caller's task.
public final class InterceptingVerifier: ReceiptVerifier {
    /// One call to the verifier, with its argument.
    public enum Call: Sendable, Hashable {
        /// ``ReceiptVerifier/verify(_:)``.
        case verify(VerificationRequest)

        /// The request verified.
        public var request: VerificationRequest {
            switch self {
            case .verify(let request): return request
            }
        }
    }

    /// What the hook decides about a call; an answer is a verdict.
    public typealias Decision = InterceptionDecision<ReceiptVerdict>
    /// A hook: sees each call before the wrapped verifier does, and decides
    /// what happens to it. A hook that throws fails the call with its error.
    public typealias Hook = @Sendable (Call) async throws -> Decision

    /// The verifier every call that is let through reaches.
    public let base: any ReceiptVerifier
    private let interceptor: Interceptor<Call, ReceiptVerdict>

    /// Wraps `base`; `hook` (when given) intercepts the calls from the start.
    public init(wrapping base: any ReceiptVerifier, hook: Hook? = nil) {
        self.base = base
        interceptor = Interceptor(hook: hook)
    }

    /// Replaces the hook; nil lets every call through.
    public func intercept(_ hook: Hook?) { interceptor.setHook(hook) }

    /// Every call made so far, oldest first, whatever the hook decided.
    public var calls: [Call] { interceptor.calls }

    /// Forgets the calls recorded so far (waiters count from what remains).
    public func clearCalls() { interceptor.clearCalls() }

    /// Returns once `count` calls matching `matches` have been made (counting
    /// those made before this call), as soon as the last one is made and before
    /// its hook runs.
    public func waitForCalls(_ count: Int = 1, where matches: @escaping @Sendable (Call) -> Bool = { _ in true }) async {
        await interceptor.waitForCalls(count, where: matches)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
        try await interceptor.perform(.verify(request), forward: { try await base.verify(request) },
                                      wrap: { $0 }, unwrap: { $0 })
    }
}
