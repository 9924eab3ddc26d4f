import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// Sits between the engine and the simulated store and checks that every
/// answered payment was taken up. The store answers a payment before `add`
/// returns (unless it holds the updates back), so by then the engine must have
/// moved the payment's order out of `purchasing`. If it did not, the purchase
/// call would wait for ever: the order is recorded as stranded and the clock
/// is moved past the store timeout, so that the call returns and the test
/// reports it instead of hanging.
actor AnswerAuditor: PaymentQueue {
    let base: SimulatedPaymentQueue
    let orders: InMemoryOrderStore
    let clock: ManualClock
    let storeTimeout: TimeInterval
    /// The orders left waiting for an answer the store had given.
    private(set) var stranded: [String] = []
    private var answered = 0
    private var answerWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    init(base: SimulatedPaymentQueue, orders: InMemoryOrderStore, clock: ManualClock, storeTimeout: TimeInterval) {
        self.base = base
        self.orders = orders
        self.clock = clock
        self.storeTimeout = storeTimeout
    }

    func products(for identifiers: Set<String>) async throws -> ProductsResponse { try await base.products(for: identifiers) }
    func canMakePayments() async -> Bool { await base.canMakePayments() }
    func finish(transactionID: String) async throws { try await base.finish(transactionID: transactionID) }
    func restoreCompletedTransactions() async throws -> [StoreTransaction] { try await base.restoreCompletedTransactions() }
    func revokedTransactions() async throws -> [StoreTransaction] { try await base.revokedTransactions() }
    func attach(_ observer: any PaymentQueueObserver) async { await base.attach(observer) }

    func add(_ payment: Payment) async throws {
        let heldBefore = await base.heldUpdateCount()
        defer { countAnswer() }
        try await base.add(payment)
        // Held back on purpose (a late update): the order waits, rightly.
        guard await base.heldUpdateCount() == heldBefore else { return }
        let order = await orders.orders(forUser: payment.userID).first { $0.token == payment.orderToken }
        guard let order, order.status == .purchasing || order.status == .created else { return }
        stranded.append("\(order.id) (\(order.userID), \(order.productID))")
        clock.advance(by: storeTimeout)
    }

    /// Returns once the store has answered `count` payments (or held their answers back).
    func waitUntilAnswered(_ count: Int) async {
        if answered >= count { return }
        await withCheckedContinuation { answerWaiters.append((count, $0)) }
    }

    private func countAnswer() {
        answered += 1
        let ready = answerWaiters.filter { $0.count <= answered }
        answerWaiters.removeAll { $0.count <= answered }
        for waiter in ready { waiter.continuation.resume() }
    }
}
