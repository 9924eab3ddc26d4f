import PurchaseKit

/// An order store that passes every call to another one, and lets a test
/// intercept any of them: fail a save, answer a lookup, hold a write until
/// released, count what runs at once. It also records every call, in order.
///
/// Every requirement of ``OrderStore`` is forwarded, those with a default in
/// a protocol extension too (spends, renewal states), so the wrapped store's
/// own implementation is the one that runs.
///
/// ```swift
/// let store = InterceptingOrderStore(wrapping: InMemoryOrderStore()) { call in
///     if case .save(let order) = call, order.status == .delivered { return .fail(DiskFull()) }
///     return .proceed
/// }
/// ```
///
/// Safe to call from many tasks at once; the hook runs on the caller's task,
/// so calls that overlap run their hooks at the same time.
public final class InterceptingOrderStore: OrderStore {
    /// What the hook decides about a call.
    public typealias Decision = InterceptionDecision<Answer>
    /// A hook: sees each call before the wrapped store does, and decides what
    /// happens to it. A hook that throws fails the call with its error.
    public typealias Hook = @Sendable (Call) async throws -> Decision

    /// The store every call that is let through reaches.
    public let base: any OrderStore
    private let interceptor: Interceptor<Call, Answer>

    /// Wraps `base`; `hook` (when given) intercepts the calls from the start.
    public init(wrapping base: any OrderStore, hook: Hook? = nil) {
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

    // MARK: OrderStore

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func save(_ order: Order) async throws {
        try await interceptor.perform(.save(order), forward: { try await base.save(order) },
                                      wrap: { .done }, unwrap: \.asDone)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func loadOpenOrders() async throws -> OrderLoadReport {
        try await interceptor.perform(.loadOpenOrders, forward: { try await base.loadOpenOrders() },
                                      wrap: Answer.report, unwrap: \.asReport)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func openOrders(forUser userID: String) async throws -> [Order] {
        try await interceptor.perform(.openOrders(userID: userID), forward: { try await base.openOrders(forUser: userID) },
                                      wrap: Answer.orders, unwrap: \.asOrders)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func orders(forUser userID: String) async throws -> [Order] {
        try await interceptor.perform(.orders(userID: userID), forward: { try await base.orders(forUser: userID) },
                                      wrap: Answer.orders, unwrap: \.asOrders)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func order(id: String) async throws -> Order? {
        try await interceptor.perform(.orderWithID(id), forward: { try await base.order(id: id) },
                                      wrap: Answer.order, unwrap: \.asOrder)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func order(transactionID: String) async throws -> Order? {
        try await interceptor.perform(.orderWithTransactionID(transactionID),
                                      forward: { try await base.order(transactionID: transactionID) },
                                      wrap: Answer.order, unwrap: \.asOrder)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func orders(originalTransactionID: String) async throws -> [Order] {
        try await interceptor.perform(.ordersOfPurchase(originalTransactionID: originalTransactionID),
                                      forward: { try await base.orders(originalTransactionID: originalTransactionID) },
                                      wrap: Answer.orders, unwrap: \.asOrders)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func order(token: String) async throws -> Order? {
        try await interceptor.perform(.orderWithToken(token), forward: { try await base.order(token: token) },
                                      wrap: Answer.order, unwrap: \.asOrder)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func archive(orderID: String) async throws {
        try await interceptor.perform(.archive(orderID: orderID), forward: { try await base.archive(orderID: orderID) },
                                      wrap: { .done }, unwrap: \.asDone)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func remove(orderID: String) async throws {
        try await interceptor.perform(.remove(orderID: orderID), forward: { try await base.remove(orderID: orderID) },
                                      wrap: { .done }, unwrap: \.asDone)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func recordSpend(_ spend: ConsumableSpend) async throws -> ConsumableSpend {
        try await interceptor.perform(.recordSpend(spend), forward: { try await base.recordSpend(spend) },
                                      wrap: Answer.spend, unwrap: \.asSpend)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func spends(forUser userID: String) async throws -> [ConsumableSpend] {
        try await interceptor.perform(.spends(userID: userID), forward: { try await base.spends(forUser: userID) },
                                      wrap: Answer.spends, unwrap: \.asSpends)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func saveRenewalState(_ record: RenewalStateRecord) async throws {
        try await interceptor.perform(.saveRenewalState(record), forward: { try await base.saveRenewalState(record) },
                                      wrap: { .done }, unwrap: \.asDone)
    }

    /// Records the call and forwards it to ``base``, unless the hook decides otherwise.
    public func renewalStates(forUser userID: String) async throws -> [RenewalStateRecord] {
        try await interceptor.perform(.renewalStates(userID: userID),
                                      forward: { try await base.renewalStates(forUser: userID) },
                                      wrap: Answer.renewalStates, unwrap: \.asRenewalStates)
    }
}
