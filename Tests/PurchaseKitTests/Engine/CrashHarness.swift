import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
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
        /// Whether it died at its point, not by ``killNow()``.
        var diedAtPoint = false
        var saves = 0, verifies = 0, finishes = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let point: Point?
    private let state = Locked(State())

    init(at point: Point?) { self.point = point }

    var isDead: Bool { state.withLock { $0.dead } }

    /// Returns once the switch has fired, or once `done` has returned without
    /// it firing: then the process is killed there. Never waits for a kill
    /// that cannot come (a configuration whose calls do not go through the
    /// switch, a point the run never reaches), as long as `done` returns.
    ///
    /// - Returns: whether the switch fired at its point.
    @discardableResult
    func waitUntilDead(orAfter done: @escaping @Sendable () async -> Void) async -> Bool {
        Task {
            await done()
            self.killNow()
        }
        await waitUntilDead()
        return state.withLock { $0.diedAtPoint }
    }

    private func waitUntilDead() async {
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
    func killNow() { die(atPoint: false) }

    private func die(atPoint: Bool) {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            if !s.dead { s.diedAtPoint = atPoint }
            s.dead = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Counts one call, dies before it as scheduled, and otherwise lets it
    /// through to die after it as scheduled (once it has taken effect).
    private func counted<Answer>(_ kind: WritableKeyPath<State, Int>, before: (Int) -> Point,
                                 after: @escaping @Sendable (Int) -> Point) throws -> InterceptionDecision<Answer> {
        try check()
        let n = state.withLock { s -> Int in
            s[keyPath: kind] += 1
            return s[keyPath: kind]
        }
        if point == before(n) { die(atPoint: true); throw Killed() }
        return .proceedThen { outcome in
            if case .success = outcome, self.point == after(n) { self.die(atPoint: true); throw Killed() }
        }
    }

    func check() throws { if isDead { throw Killed() } }

    /// The order store as a dying process sees it: saves are counted, and
    /// every call fails once the process is dead.
    var orderStoreHook: InterceptingOrderStore.Hook {
        { call in
            guard case .save = call else { try self.check(); return .proceed }
            return try self.counted(\.saves, before: Point.beforeSave, after: Point.afterSave)
        }
    }

    /// The store as a dying process sees it: finishes are counted, every call
    /// fails once the process is dead (`canMakePayments` answers false). A dead
    /// engine stays attached until the next one attaches; whatever it then
    /// tries fails through the switch, so it can change nothing.
    var paymentQueueHook: InterceptingPaymentQueue.Hook {
        { call in
            switch call {
            case .attach: return .proceed
            case .finish: return try self.counted(\.finishes, before: Point.beforeFinish, after: Point.afterFinish)
            default: try self.check(); return .proceed
            }
        }
    }

    /// The verifier as a dying process sees it: the server may apply the
    /// request, but a dead process never hears the answer.
    var verifierHook: InterceptingVerifier.Hook {
        { _ in try self.counted(\.verifies, before: Point.beforeVerify, after: Point.afterVerify) }
    }
}

extension KillSwitch {
    /// Returns once the switch fired at its point while `engine` ran `call`
    /// (the dying process's call). When the call returns and the engine comes
    /// to rest first, the test fails and the process is killed there.
    func waitForDeath<Value>(of engine: PurchaseEngine, during call: Task<Value, Never>,
                             file: StaticString = #filePath, line: UInt = #line) async {
        let died = await waitUntilDead(orAfter: {
            _ = await call.value
            await engine.waitUntilIdle()
        })
        if !died { XCTFail("the process came to rest without dying \(point.map { "\($0)" } ?? "")", file: file, line: line) }
    }

    /// Starts `engine` and returns when the switch fires, or when the engine
    /// has recovered without reaching it (then the process is killed there).
    func waitUntilDeadOrIdle(_ engine: PurchaseEngine) async {
        await waitUntilDead(orAfter: {
            _ = try? await engine.start()
            await engine.waitUntilIdle()
        })
    }
}

extension World {
    /// An engine configuration whose every outside call goes through `kill`,
    /// on the world's order store or on `orders`.
    func dyingConfiguration(_ kill: KillSwitch, orders: (any OrderStore)? = nil) -> PurchaseEngine.Configuration {
        configuration(store: InterceptingOrderStore(wrapping: orders ?? self.orders, hook: kill.orderStoreHook),
                      queue: InterceptingPaymentQueue(wrapping: store, hook: kill.paymentQueueHook),
                      verifier: InterceptingVerifier(wrapping: server, hook: kill.verifierHook))
    }
}
