import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// Sits between the engine and the simulated store (as the hook of
/// ``queue``) and checks that every answered payment was taken up. The store
/// answers a payment before `add` returns (unless it holds the updates back),
/// so by then the engine must have moved the payment's order out of
/// `purchasing`. If it did not, the purchase call would wait for ever: the
/// order is recorded as stranded and the clock is moved past the store
/// timeout, so that the call returns and the test reports it instead of hanging.
final class AnswerAuditor: Sendable {
    /// The store the engine is given.
    let queue: InterceptingPaymentQueue
    private let state = Locked(State())

    private struct State {
        var stranded: [String] = []
        var answered = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    init(base: SimulatedPaymentQueue, orders: InMemoryOrderStore, clock: ManualClock, storeTimeout: TimeInterval) {
        queue = InterceptingPaymentQueue(wrapping: base)
        queue.intercept { [weak self] call in
            guard case .add(let payment) = call, let self else { return .proceed }
            let heldBefore = await base.heldUpdateCount()
            return .proceedThen { outcome in
                defer { self.countAnswer() }
                guard case .success = outcome else { return }
                // Held back on purpose (a late update): the order waits, rightly.
                guard await base.heldUpdateCount() == heldBefore else { return }
                let order = await orders.orders(forUser: payment.userID).first { $0.token == payment.orderToken }
                guard let order, order.status == .purchasing || order.status == .created else { return }
                self.state.withLock { $0.stranded.append("\(order.id) (\(order.userID), \(order.productID))") }
                clock.advance(by: storeTimeout)
            }
        }
    }

    /// The orders left waiting for an answer the store had given.
    var stranded: [String] { state.withLock { $0.stranded } }

    /// Returns once the store has answered `count` payments (or held their answers back).
    func waitUntilAnswered(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let reached = state.withLock { state -> Bool in
                if state.answered >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    private func countAnswer() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.answered += 1
            let ready = state.waiters.filter { $0.count <= state.answered }.map(\.continuation)
            state.waiters.removeAll { $0.count <= state.answered }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }
}
