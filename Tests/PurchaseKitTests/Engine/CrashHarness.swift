import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// Simulates a process kill at a chosen point: from the moment it fires,
/// every call the dead engine makes to the outside world fails and has no
/// effect, exactly as if the process were gone. The world (order store, store
/// account, server) lives on for the next engine.
final class KillSwitch: Sendable {
    struct Killed: Error {}

    enum Point: Sendable, Equatable, CustomStringConvertible {
        /// Die just before the n-th save reaches the store.
        case beforeSave(Int)
        /// Die just after the n-th save is durable.
        case afterSave(Int)
        /// Die just before (or after) the n-th verifier call.
        case beforeVerify(Int), afterVerify(Int)
        /// Die just before (or after) the n-th finish.
        case beforeFinish(Int), afterFinish(Int)

        var description: String {
            switch self {
            case .beforeSave(let n): return "before save #\(n)"
            case .afterSave(let n): return "after save #\(n)"
            case .beforeVerify(let n): return "before verify #\(n)"
            case .afterVerify(let n): return "after verify #\(n)"
            case .beforeFinish(let n): return "before finish #\(n)"
            case .afterFinish(let n): return "after finish #\(n)"
            }
        }
    }

    private struct State {
        var dead = false
        var saves = 0, verifies = 0, finishes = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let point: Point?
    private let state = Locked(State())

    init(at point: Point?) { self.point = point }

    var isDead: Bool { state.withLock { $0.dead } }

    /// Returns once the switch has fired.
    func waitUntilDead() async {
        await withCheckedContinuation { continuation in
            let fired = state.withLock { s -> Bool in
                if s.dead { return true }
                s.waiters.append(continuation)
                return false
            }
            if fired { continuation.resume() }
        }
    }

    /// Kills the process now, wherever it is.
    func killNow() { die() }

    private func die() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.dead = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Wraps one call: counts it, and dies before or after it as scheduled.
    private func around<T>(_ kind: WritableKeyPath<State, Int>, before: (Int) -> Point, after: (Int) -> Point,
                   _ body: () async throws -> T) async throws -> T {
        guard !isDead else { throw Killed() }
        let n = state.withLock { s -> Int in
            s[keyPath: kind] += 1
            return s[keyPath: kind]
        }
        if point == before(n) { die(); throw Killed() }
        let value = try await body()
        if point == after(n) { die(); throw Killed() }
        return value
    }

    func save(_ body: () async throws -> Void) async throws {
        try await around(\.saves, before: Point.beforeSave, after: Point.afterSave, body)
    }

    func verify<T>(_ body: () async throws -> T) async throws -> T {
        try await around(\.verifies, before: Point.beforeVerify, after: Point.afterVerify, body)
    }

    func finish(_ body: () async throws -> Void) async throws {
        try await around(\.finishes, before: Point.beforeFinish, after: Point.afterFinish, body)
    }

    func check() throws { if isDead { throw Killed() } }
}

/// The order store as a dying process sees it.
struct DyingOrderStore: OrderStore {
    let base: any OrderStore
    let kill: KillSwitch

    func save(_ order: Order) async throws { try await kill.save { try await base.save(order) } }
    func loadOpenOrders() async throws -> OrderLoadReport { try kill.check(); return try await base.loadOpenOrders() }
    func openOrders(forUser userID: String) async throws -> [Order] { try kill.check(); return try await base.openOrders(forUser: userID) }
    func orders(forUser userID: String) async throws -> [Order] { try kill.check(); return try await base.orders(forUser: userID) }
    func order(id: String) async throws -> Order? { try kill.check(); return try await base.order(id: id) }
    func order(transactionID: String) async throws -> Order? { try kill.check(); return try await base.order(transactionID: transactionID) }
    func order(token: String) async throws -> Order? { try kill.check(); return try await base.order(token: token) }
    func archive(orderID: String) async throws { try kill.check(); try await base.archive(orderID: orderID) }
    func remove(orderID: String) async throws { try kill.check(); try await base.remove(orderID: orderID) }
    func recordSpend(_ spend: ConsumableSpend) async throws -> ConsumableSpend { try kill.check(); return try await base.recordSpend(spend) }
    func spends(forUser userID: String) async throws -> [ConsumableSpend] { try kill.check(); return try await base.spends(forUser: userID) }
    func saveRenewalState(_ record: RenewalStateRecord) async throws { try kill.check(); try await base.saveRenewalState(record) }
    func renewalStates(forUser userID: String) async throws -> [RenewalStateRecord] { try kill.check(); return try await base.renewalStates(forUser: userID) }
}

/// The store as a dying process sees it.
struct DyingPaymentQueue: PaymentQueue {
    let base: SimulatedPaymentQueue
    let kill: KillSwitch

    func products(for identifiers: Set<String>) async throws -> ProductsResponse { try kill.check(); return try await base.products(for: identifiers) }
    func canMakePayments() async -> Bool { kill.isDead ? false : await base.canMakePayments() }
    func add(_ payment: Payment) async throws { try kill.check(); try await base.add(payment) }
    func finish(transactionID: String) async throws { try await kill.finish { try await base.finish(transactionID: transactionID) } }
    func restoreCompletedTransactions() async throws -> [StoreTransaction] { try kill.check(); return try await base.restoreCompletedTransactions() }
    func revokedTransactions() async throws -> [StoreTransaction] { try kill.check(); return try await base.revokedTransactions() }
    // A dead engine stays attached until the next one attaches; whatever it
    // then tries fails through the switch, so it can change nothing.
    func attach(_ observer: any PaymentQueueObserver) async { await base.attach(observer) }
}

/// The verifier as a dying process sees it: the server may apply the request,
/// but a dead process never hears the answer.
struct DyingVerifier: ReceiptVerifier {
    let base: any ReceiptVerifier
    let kill: KillSwitch

    func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
        try await kill.verify { try await base.verify(request) }
    }
}

extension World {
    /// An engine configuration whose every outside call goes through `kill`.
    func dyingConfiguration(_ kill: KillSwitch) -> PurchaseEngine.Configuration {
        configuration(store: DyingOrderStore(base: orders, kill: kill),
                      queue: DyingPaymentQueue(base: store, kill: kill),
                      verifier: DyingVerifier(base: server, kill: kill))
    }
}
