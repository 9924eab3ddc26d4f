import Foundation
import PurchaseKit

/// The least a payment queue can do for a purchase: every payment is paid at
/// once, with a transaction carrying the payment's token, and the update goes
/// to the observer before `add` returns, as the simulated store delivers it.
/// No catalog rules, no account, no signed receipt: run against the
/// simulated store in the same process, it shows what the simulator adds to
/// a purchase, and so what the engine alone costs.
///
/// Its calls run where they are called from (`nonisolated(nonsending)`), as
/// `InMemoryOrderStore`'s do. `@unchecked Sendable` is safe: the observer and
/// the counter are only touched under the lock.
public final class MinimalPaymentQueue: PaymentQueue, @unchecked Sendable {
    private let products: [StoreProduct]
    private let lock = NSLock()
    private weak var observer: (any PaymentQueueObserver)?
    private var lastTransaction = 0

    public init(products: [StoreProduct]) {
        self.products = products
    }

    public nonisolated(nonsending) func products(for identifiers: Set<String>) async throws -> ProductsResponse {
        ProductsResponse(products: products.filter { identifiers.contains($0.id) },
                         invalidProductIDs: identifiers.filter { id in !products.contains { $0.id == id } }.sorted())
    }

    public nonisolated(nonsending) func canMakePayments() async -> Bool { true }

    public nonisolated(nonsending) func add(_ payment: Payment) async throws {
        let (observer, number) = lock.withLock { () -> ((any PaymentQueueObserver)?, Int) in
            lastTransaction += 1
            return (self.observer, lastTransaction)
        }
        let now = Date()
        let transaction = StoreTransaction(id: String(number), productID: payment.productID, purchaseDate: now,
                                           quantity: payment.quantity, orderToken: payment.orderToken,
                                           receipt: Data(repeating: 0x5A, count: 64))
        await observer?.paymentQueue(didUpdate: [
            TransactionUpdate(kind: .purchasing, productID: payment.productID, orderToken: payment.orderToken, date: now),
            TransactionUpdate(kind: .purchased, productID: payment.productID, orderToken: payment.orderToken,
                              transaction: transaction, date: now),
        ])
    }

    public nonisolated(nonsending) func finish(transactionID: String) async throws {}

    public nonisolated(nonsending) func restoreCompletedTransactions() async throws -> [StoreTransaction] { [] }

    public nonisolated(nonsending) func attach(_ observer: any PaymentQueueObserver) async {
        lock.withLock { self.observer = observer }
    }

    public nonisolated(nonsending) func revokedTransactions() async throws -> [StoreTransaction] { [] }

    public nonisolated(nonsending) func requestRefund(transactionID: String) async throws -> RefundRequestStatus { .submitted }

    public nonisolated(nonsending) func isEligibleForIntroOffer(groupID: String) async -> Bool? { nil }
}
