import Foundation

/// A renewal state the store gave, and when.
struct KnownRenewalState: Sendable, Hashable {
    var state: SubscriptionRenewalState
    var asOf: Date
}

/// Computes a ``CustomerInfo`` from stored facts only: the user's orders, their
/// product facts, their spends, the renewal states last heard from the store,
/// and the lengths of non-renewing subscriptions. Pure: no I/O, no clock.
struct CustomerInfoBuilder {
    var userID: String
    var orders: [Order]
    var facts: [String: ProductFacts]
    var spends: [ConsumableSpend]
    var renewals: [String: KnownRenewalState]
    var nonRenewingDuration: (String) -> SubscriptionPeriod?
    var now: Date
    /// How consumables add to balances; products not named add 1 per unit to their own.
    var credits: [String: ConsumableCredit] = [:]
    /// Other users' paid changes of the user's subscriptions (a store account
    /// shared): each ends the user's plan in that subscription when it begins.
    var changesByOthers: [Order] = []

    /// Delivered (or completed) orders whose transaction the store did not take back.
    var delivered: [Order] {
        orders.filter { ($0.status == .delivered || $0.status == .completed) && !($0.transaction?.isRevoked ?? false) && $0.transaction != nil }
    }

    func build() -> CustomerInfo {
        let subscriptions = subscriptionStatuses()
        let nonRenewing = nonRenewingSubscriptions()
        // One subscription per group: a later purchase in the group replaces the earlier ones.
        let paid = orders.filter { $0.transaction != nil && $0.status.isPaidForSupersession }
        let superseded = SupersededSubscriptions.orderIDs(in: paid, facts: facts, endedBy: changesByOthers, now: now)
        var entitlements: [String: Entitlement] = [:]
        for order in delivered where !superseded.contains(order.id) {
            guard let transaction = order.transaction, let type = facts[order.id]?.type else { continue }
            var expiration = transaction.expirationDate
            switch type {
            case .consumable:
                continue
            case .nonConsumable:
                break
            case .autoRenewable:
                if let end = expiration, end <= now {
                    guard let group = facts[order.id]?.groupID, subscriptions[group]?.status == .inGracePeriod,
                          subscriptions[group]?.originalTransactionID == transaction.originalID else { continue }
                }
            case .nonRenewable:
                guard let summary = nonRenewing[order.productID], summary.isActive else { continue }
                expiration = summary.expirationDate
            }
            let entitlement = Entitlement(productID: order.productID, productType: type, orderID: order.id,
                                          transactionID: transaction.id, expirationDate: expiration)
            if let known = entitlements[order.productID],
               (known.expirationDate ?? .distantFuture) >= (entitlement.expirationDate ?? .distantFuture) { continue }
            entitlements[order.productID] = entitlement
        }
        return CustomerInfo(userID: userID, entitlements: entitlements.values.sorted { $0.productID < $1.productID },
                            subscriptions: subscriptions, nonRenewingSubscriptions: nonRenewing,
                            consumableBalances: consumableBalances())
    }

    /// Delivered units (as ``credits`` count them) minus spent units, per
    /// balance key, never below zero.
    func consumableBalances() -> [String: Int] {
        var tally = ConsumableTally()
        for order in delivered where facts[order.id]?.type == .consumable { tally.add(order) }
        return Self.subtracting(spends, from: ConsumableCredit.balances(tally.balance, credits: credits))
    }

    static func subtracting(_ spends: [ConsumableSpend], from delivered: [String: Int]) -> [String: Int] {
        var balance = delivered
        for spend in spends {
            balance[spend.balanceKey] = max(0, balance[spend.balanceKey, default: 0] - spend.amount)
        }
        return balance
    }

    /// The latest subscription of every group, and where it stands.
    func subscriptionStatuses() -> [String: SubscriptionGroupStatus] {
        let latest = SupersededSubscriptions.latestPerGroup(orders, facts: facts, endedBy: changesByOthers, now: now)
        var result: [String: SubscriptionGroupStatus] = [:]
        for (group, order) in latest {
            guard let transaction = order.transaction else { continue }
            let known = renewals[transaction.originalID]
            var status: SubscriptionStatus
            var willRenew: Bool?
            var graceEnd: Date?
            if order.status == .revoked || transaction.isRevoked {
                status = .revoked
                willRenew = false
            } else if let expiration = transaction.expirationDate, expiration <= now {
                switch known?.state {
                case .inGracePeriod(let until)? where until > now:
                    (status, willRenew, graceEnd) = (.inGracePeriod, true, until)
                case .inBillingRetry?, .inGracePeriod?:
                    (status, willRenew) = (.inBillingRetry, true)
                case .active(let renews)?:
                    // The store said it renews, but no renewal reached this engine yet.
                    (status, willRenew) = (.expired, renews)
                case .expired?:
                    (status, willRenew) = (.expired, false)
                case nil:
                    status = .expired
                }
            } else {
                status = .subscribed
                if case .active(let renews)? = known?.state { willRenew = renews }
            }
            var expiration = transaction.expirationDate
            if status != .revoked, let change = SupersededSubscriptions.end(of: transaction, by: changesByOthers, now: .distantFuture) {
                // Another user of the store account changed the subscription:
                // the user's plan ends then (a change dated ahead of the
                // clock is its expiration, so the info is refreshed then),
                // and renews for that user.
                if change <= now { (status, willRenew, graceEnd) = (.expired, false, nil) }
                expiration = min(expiration ?? change, change)
            }
            result[group] = SubscriptionGroupStatus(
                groupID: group, productID: order.productID, status: status, expirationDate: expiration,
                willAutoRenew: willRenew, gracePeriodExpirationDate: graceEnd, transactionID: transaction.id,
                originalTransactionID: transaction.originalID, renewalStateAsOf: known?.asOf)
        }
        return result
    }

    /// Every non-renewing product the user bought, with the end of its last
    /// purchase: purchases run one after the other.
    func nonRenewingSubscriptions() -> [String: NonRenewingSubscription] {
        var byProduct: [String: [(order: Order, transaction: StoreTransaction)]] = [:]
        for order in delivered where facts[order.id]?.type == .nonRenewable {
            guard let transaction = order.transaction else { continue }
            byProduct[order.productID, default: []].append((order, transaction))
        }
        var result: [String: NonRenewingSubscription] = [:]
        for (productID, purchases) in byProduct {
            let sorted = purchases.sorted { ($0.transaction.purchaseDate, $0.transaction.id) < ($1.transaction.purchaseDate, $1.transaction.id) }
            guard let last = sorted.last else { continue }
            var end: Date?
            if let period = nonRenewingDuration(productID) {
                for purchase in sorted {
                    let start = max(end ?? purchase.transaction.purchaseDate, purchase.transaction.purchaseDate)
                    end = (try? period.date(after: start, count: max(1, purchase.transaction.quantity))) ?? Date.distantFuture
                }
            } else {
                end = last.transaction.expirationDate
            }
            result[productID] = NonRenewingSubscription(productID: productID, transactionID: last.transaction.id,
                                                        expirationDate: end, isActive: end.map { $0 > now } ?? true)
        }
        return result
    }

    /// The next moment a stored fact runs out (a subscription period, a grace
    /// period, a non-renewing subscription): the info must be computed again then.
    static func nextChange(of info: CustomerInfo, after now: Date) -> Date? {
        var dates: [Date] = []
        for status in info.subscriptions.values {
            if let end = status.expirationDate { dates.append(end) }
            if let end = status.gracePeriodExpirationDate { dates.append(end) }
        }
        for subscription in info.nonRenewingSubscriptions.values {
            if let end = subscription.expirationDate { dates.append(end) }
        }
        return dates.filter { $0 > now && $0 < .distantFuture }.min()
    }
}
