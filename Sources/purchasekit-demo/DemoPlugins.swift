import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// The simulated store as the demo app sees it. The real App Store lives
/// outside the app, so its account survives the app's crash: this wrapper
/// saves the simulated store's state after every change the app causes, and
/// before the app hears of any update, so that a kill at any moment leaves the
/// store as the real one would be.
final class PersistentPaymentQueue: PaymentQueue {
    let base: SimulatedPaymentQueue
    private let relay: Relay

    init(base: SimulatedPaymentQueue, file: URL) {
        self.base = base
        self.relay = Relay(base: base, file: file)
    }

    /// The first failure to save the store's state, reported when the command ends.
    var saveFailure: (any Error)? { relay.failure.withLock { $0 } }

    /// Saves the store's state now.
    func save() async {
        await relay.save()
    }

    func products(for identifiers: Set<String>) async throws -> ProductsResponse {
        try await base.products(for: identifiers)
    }

    func canMakePayments() async -> Bool {
        await base.canMakePayments()
    }

    func add(_ payment: Payment) async throws {
        try await base.add(payment)
        await relay.save()
    }

    func finish(transactionID: String) async throws {
        try await base.finish(transactionID: transactionID)
        await relay.save()
    }

    func restoreCompletedTransactions() async throws -> [StoreTransaction] {
        let transactions = try await base.restoreCompletedTransactions()
        await relay.save()
        return transactions
    }

    func revokedTransactions() async throws -> [StoreTransaction] {
        try await base.revokedTransactions()
    }

    func attach(_ observer: any PaymentQueueObserver) async {
        relay.target.withLock { $0 = WeakTarget(value: observer) }
        await base.attach(relay)
    }

    func renewalState(forOriginalTransactionID originalTransactionID: String) async -> SubscriptionRenewalState? {
        // Asking processes renewals, which changes the account.
        let state = await base.renewalState(forOriginalTransactionID: originalTransactionID)
        await relay.save()
        return state
    }

    struct WeakTarget {
        weak var value: (any PaymentQueueObserver)?
    }

    /// Stands between the store and the engine: saves, then forwards. The
    /// store holds its observer weakly, so the queue holds the relay.
    final class Relay: PaymentQueueObserver {
        let base: SimulatedPaymentQueue
        let file: URL
        let target = Locked(WeakTarget())
        let failure = Locked<(any Error)?>(nil)

        init(base: SimulatedPaymentQueue, file: URL) {
            self.base = base
            self.file = file
        }

        func save() async {
            do {
                DemoKillSwitch.beforeWrite()
                try await base.saveState(to: file)
            } catch {
                failure.withLock { $0 = $0 ?? error }
            }
        }

        func paymentQueue(didUpdate updates: [TransactionUpdate]) async {
            await save()
            await target.withLock { $0.value }?.paymentQueue(didUpdate: updates)
        }

        func paymentQueue(didReceive intent: PromotedPurchaseIntent) async {
            await target.withLock { $0.value }?.paymentQueue(didReceive: intent)
        }
    }
}

/// The app's server: the simulated receipt server checks the receipt, and the
/// backend's persisted ledger makes a transaction delivered in an earlier run
/// `alreadyDelivered` (the simulated server's own ledger lives in memory only).
/// A credit is durable before `delivered` is answered.
struct LedgerVerifier: ReceiptVerifier {
    let server: SimulatedReceiptServer
    let backend: Backend

    func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
        let result = try await server.verify(request)
        switch result {
        case .delivered, .alreadyDelivered:
            if let known = await backend.credit(transactionID: request.idempotencyKey) {
                guard known.userID == request.order.userID else {
                    return .invalid(reason: "the transaction was already credited to another user")
                }
                return .alreadyDelivered
            }
            for credit in await server.credits(forTransactionID: request.idempotencyKey) {
                try await backend.record(credit)
            }
            return .delivered
        case .invalid, .retryLater:
            return result
        }
    }
}

/// The order store of `buy --crash-after STATE`: right after an order with
/// that status is durably saved, the process ends abruptly.
struct CrashingOrderStore: OrderStore {
    let base: any OrderStore
    let status: OrderStatus
    let crash: @Sendable (Order) async -> Never

    func save(_ order: Order) async throws {
        try await base.save(order)
        if order.status == status { await crash(order) }
    }

    func loadOpenOrders() async throws -> OrderLoadReport { try await base.loadOpenOrders() }
    func openOrders(forUser userID: String) async throws -> [Order] { try await base.openOrders(forUser: userID) }
    func orders(forUser userID: String) async throws -> [Order] { try await base.orders(forUser: userID) }
    func order(id: String) async throws -> Order? { try await base.order(id: id) }
    func order(transactionID: String) async throws -> Order? { try await base.order(transactionID: transactionID) }
    func orders(originalTransactionID: String) async throws -> [Order] {
        try await base.orders(originalTransactionID: originalTransactionID)
    }
    func order(token: String) async throws -> Order? { try await base.order(token: token) }
    func archive(orderID: String) async throws { try await base.archive(orderID: orderID) }
    func remove(orderID: String) async throws { try await base.remove(orderID: orderID) }
    func recordSpend(_ spend: ConsumableSpend) async throws -> ConsumableSpend { try await base.recordSpend(spend) }
    func spends(forUser userID: String) async throws -> [ConsumableSpend] { try await base.spends(forUser: userID) }
    func saveRenewalState(_ record: RenewalStateRecord) async throws { try await base.saveRenewalState(record) }
    func renewalStates(forUser userID: String) async throws -> [RenewalStateRecord] { try await base.renewalStates(forUser: userID) }
}
