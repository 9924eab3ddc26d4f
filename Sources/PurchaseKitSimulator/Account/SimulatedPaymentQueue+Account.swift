import Foundation
import PurchaseKit

extension SimulatedPaymentQueue {
    /// The account's restorable transactions: every non-consumable and every
    /// auto-renewable subscription still granting access, the latest
    /// transaction per original id, none revoked, oldest first.
    ///
    /// Restored transactions are returned, not delivered to the observer.
    public func restoreCompletedTransactions() async throws -> [StoreTransaction] {
        try await waitLatency()
        await processRenewals()
        let now = clock.now
        var latest: [String: StoreTransaction] = [:]
        for record in records {
            let transaction = record.transaction
            guard let product = catalog[transaction.productID], product.type.isRestorable,
                  !transaction.isRevoked, record.isUpgraded != true else { continue }
            if product.type == .autoRenewable {
                let running = (transaction.expirationDate ?? now) > now
                    || subscriptions[product.id]?.state == .inGracePeriod
                guard running else { continue }
            }
            if let known = latest[transaction.originalID], known.purchaseDate > transaction.purchaseDate { continue }
            latest[transaction.originalID] = transaction
        }
        return latest.values.sorted { ($0.purchaseDate, $0.id) < ($1.purchaseDate, $1.id) }
    }

    /// The store refunds a transaction: it gets a revocation date and reason,
    /// a subscription it belongs to ends at once, and `.revoked` is delivered.
    /// Refunding a refunded transaction does nothing.
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound`` when the account has no such transaction.
    public func refund(transactionID: String, reason: RevocationReason = .other) async throws {
        guard let index = recordIndex[transactionID] else {
            throw PurchaseKitError(.orderNotFound, "The account has no transaction '\(transactionID)' to refund.",
                                   advice: "Refund a transaction the simulated store made.")
        }
        guard !records[index].transaction.isRevoked else { return }
        records[index].transaction.revocationDate = clock.now
        records[index].transaction.revocationReason = reason
        records[index].revocationSeen = false
        let transaction = records[index].transaction
        if var subscription = subscriptions[transaction.productID],
           subscription.latestTransactionID == transaction.id {
            subscription.state = .revoked
            subscription.willAutoRenew = false
            subscription.stateEndsAt = nil
            subscriptions[transaction.productID] = subscription
        }
        await send([update(.revoked, for: transaction)], faults: faults(for: transaction.productID))
    }
}
