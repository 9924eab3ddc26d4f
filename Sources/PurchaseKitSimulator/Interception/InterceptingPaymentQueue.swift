import PurchaseKit

/// A store that passes every call to another one, and lets a test intercept
/// any of them: take the store offline, fail a finish, stall a payment until
/// released, count the payments in flight. It also records every call, in order.
///
/// Every requirement of ``PaymentQueue`` is forwarded, those with a default
/// in a protocol extension too (renewal states, refund requests, offer
/// eligibility), so the wrapped store's own implementation is the one that runs.
///
/// Four calls cannot throw: ``Call/canMakePayments``, ``Call/attach``,
/// ``Call/renewalState(originalTransactionID:)`` and
/// ``Call/isEligibleForIntroOffer(groupID:)``. When the hook fails one of them
/// (``InterceptionDecision/fail(_:)`` or by throwing), it answers as a store
/// out of reach would: `false`, no observer attached, `nil`, `nil`.
///
/// Safe to call from many tasks at once; the hook runs on the caller's task.
public final class InterceptingPaymentQueue: PaymentQueue {
    /// What the hook decides about a call.
    public typealias Decision = InterceptionDecision<Answer>
    /// A hook: sees each call before the wrapped store does, and decides what
    /// happens to it. A hook that throws fails the call with its error.
    public typealias Hook = @Sendable (Call) async throws -> Decision

    /// The store every call that is let through reaches.
    public let base: any PaymentQueue
    private let interceptor: Interceptor<Call, Answer>

    /// Wraps `base`; `hook` (when given) intercepts the calls from the start.
    public init(wrapping base: any PaymentQueue, hook: Hook? = nil) {
        self.base = base
        interceptor = Interceptor(hook: hook)
    }

    /// Replaces the hook; nil lets every call through.
    public func intercept(_ hook: Hook?) { interceptor.setHook(hook) }

    /// Every call made so far, oldest first, whatever the hook decided.
    public var calls: [Call] { interceptor.calls }

    /// The calls made so far of one requirement, oldest first.
    public func calls(_ name: Call.Name) -> [Call] { calls.filter { $0.name == name } }

    /// Forgets the calls recorded so far (waiters count from what remains).
    public func clearCalls() { interceptor.clearCalls() }

    /// Returns once `count` calls matching `matches` have been made (counting
    /// those made before this call), as soon as the last one is made and before
    /// its hook runs.
    public func waitForCalls(_ count: Int = 1, where matches: @escaping @Sendable (Call) -> Bool) async {
        await interceptor.waitForCalls(count, where: matches)
    }

    /// Returns once `count` calls of requirement `name` have been made.
    public func waitForCalls(_ name: Call.Name, count: Int = 1) async {
        await interceptor.waitForCalls(count) { $0.name == name }
    }

    // MARK: PaymentQueue

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func products(for identifiers: Set<String>) async throws -> ProductsResponse {
        try await interceptor.perform(.products(identifiers), forward: { try await base.products(for: identifiers) },
                                      wrap: Answer.products, unwrap: \.asProducts)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func canMakePayments() async -> Bool {
        let answer = try? await interceptor.perform(.canMakePayments, forward: { await base.canMakePayments() },
                                                    wrap: Answer.canMakePayments, unwrap: \.asCanMakePayments)
        return answer ?? false
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func add(_ payment: Payment) async throws {
        try await interceptor.perform(.add(payment), forward: { try await base.add(payment) },
                                      wrap: { .done }, unwrap: \.asDone)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func finish(transactionID: String) async throws {
        try await interceptor.perform(.finish(transactionID: transactionID),
                                      forward: { try await base.finish(transactionID: transactionID) },
                                      wrap: { .done }, unwrap: \.asDone)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func restoreCompletedTransactions() async throws -> [StoreTransaction] {
        try await interceptor.perform(.restoreCompletedTransactions,
                                      forward: { try await base.restoreCompletedTransactions() },
                                      wrap: Answer.transactions, unwrap: \.asTransactions)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func attach(_ observer: any PaymentQueueObserver) async {
        _ = try? await interceptor.perform(.attach, forward: { await base.attach(observer) },
                                           wrap: { .done }, unwrap: \.asDone)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func revokedTransactions() async throws -> [StoreTransaction] {
        try await interceptor.perform(.revokedTransactions, forward: { try await base.revokedTransactions() },
                                      wrap: Answer.transactions, unwrap: \.asTransactions)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func renewalState(forOriginalTransactionID originalTransactionID: String) async -> SubscriptionRenewalState? {
        let answer = try? await interceptor.perform(
            .renewalState(originalTransactionID: originalTransactionID),
            forward: { await base.renewalState(forOriginalTransactionID: originalTransactionID) },
            wrap: Answer.renewalState, unwrap: \.asRenewalState)
        return answer ?? nil
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func requestRefund(transactionID: String) async throws -> RefundRequestStatus {
        try await interceptor.perform(.requestRefund(transactionID: transactionID),
                                      forward: { try await base.requestRefund(transactionID: transactionID) },
                                      wrap: Answer.refund, unwrap: \.asRefund)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func isEligibleForIntroOffer(groupID: String) async -> Bool? {
        let answer = try? await interceptor.perform(.isEligibleForIntroOffer(groupID: groupID),
                                                    forward: { await base.isEligibleForIntroOffer(groupID: groupID) },
                                                    wrap: Answer.introOfferEligibility, unwrap: \.asIntroOfferEligibility)
        return answer ?? nil
    }
}
