#if !canImport(StoreKit)
import Foundation

extension ScriptedAppStore {
    /// What `Transaction.currentEntitlements` lists: non-consumables and
    /// non-renewing subscriptions not revoked, and the latest transaction of
    /// each auto-renewable subscription still running.
    static func entitlements(_ s: State) -> [VerificationResult<Transaction>] {
        var latest: [UInt64: Record] = [:]
        for record in s.records where record.transaction.productType == .autoRenewable {
            if let known = latest[record.transaction.originalID], known.transaction.purchaseDate > record.transaction.purchaseDate { continue }
            latest[record.transaction.originalID] = record
        }
        return s.records.filter { record in
            let transaction = record.transaction
            guard transaction.revocationDate == nil, !transaction.isUpgraded else { return false }
            if transaction.productType == .nonConsumable || transaction.productType == .nonRenewable { return true }
            guard transaction.productType == .autoRenewable, latest[transaction.originalID]?.transaction.id == transaction.id else { return false }
            return (transaction.expirationDate ?? .distantPast) > s.now
        }.map(\.result)
    }

    /// What `isEligibleForIntroOffer(for:)` answers: whether the account never
    /// had a transaction in the group.
    func isEligibleForIntroOffer(groupID: String) -> Bool {
        state.withLock { s in !s.records.contains { $0.transaction.subscriptionGroupID == groupID } }
    }

    func statuses(forGroup groupID: String) async throws -> [Product.SubscriptionInfo.Status] {
        state.withLock { s in
            var latest: [UInt64: Record] = [:]
            for record in s.records where record.transaction.subscriptionGroupID == groupID {
                if let known = latest[record.transaction.originalID], known.transaction.purchaseDate > record.transaction.purchaseDate { continue }
                latest[record.transaction.originalID] = record
            }
            return latest.keys.sorted().compactMap { originalID in
                guard let record = latest[originalID] else { return nil }
                let running = (record.transaction.expirationDate ?? .distantPast) > s.now
                let renewal = s.renewals[originalID]
                    ?? Renewal(state: running ? .subscribed : .expired, willAutoRenew: running, gracePeriodExpirationDate: nil,
                               isRenewalInfoVerified: true)
                let info = Product.SubscriptionInfo.RenewalInfo(
                    originalTransactionID: originalID, willAutoRenew: renewal.willAutoRenew,
                    isInBillingRetry: renewal.state == .inBillingRetryPeriod || renewal.state == .inGracePeriod,
                    gracePeriodExpirationDate: renewal.gracePeriodExpirationDate)
                return Product.SubscriptionInfo.Status(
                    state: renewal.state, transaction: record.result,
                    renewalInfo: renewal.isRenewalInfoVerified ? .verified(info) : .unverified(info, .invalidSignature))
            }
        }
    }
}
#endif
