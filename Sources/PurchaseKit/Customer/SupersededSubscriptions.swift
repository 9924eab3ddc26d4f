import Foundation

/// A user holds at most one subscription per group. When the product changes
/// within a group (an upgrade at once, a downgrade at the next renewal), the
/// store sends the new product's transaction and the old one stops counting:
/// after an upgrade its period was cut short and refunded, after a downgrade
/// it ran out. Pure.
enum SupersededSubscriptions {
    /// The orders of auto-renewable subscriptions that a later transaction of
    /// the same group replaced: every one bought before the group's latest
    /// purchase that has begun by `now`.
    static func orderIDs(in orders: [Order], facts: [String: ProductFacts], now: Date) -> Set<String> {
        var latest: [String: Date] = [:]
        for order in orders {
            guard let fact = facts[order.id], fact.type == .autoRenewable, let group = fact.groupID,
                  let bought = order.transaction?.purchaseDate, bought <= now else { continue }
            latest[group] = max(latest[group] ?? bought, bought)
        }
        var superseded: Set<String> = []
        for order in orders {
            guard let fact = facts[order.id], fact.type == .autoRenewable, let group = fact.groupID,
                  let bought = order.transaction?.purchaseDate, let newest = latest[group], bought < newest else { continue }
            superseded.insert(order.id)
        }
        return superseded
    }

    /// The orders of `orders` (one user's) that no longer count: those whose
    /// subscription another user changed later, by `now` (`changes`: the
    /// other users' paid orders; on a store account several app users share,
    /// the store then charges for the other user's tier), and those a later
    /// purchase of the user's replaced in their group, judged without the
    /// former (a subscription another user ended replaces none of the user's
    /// others, bought through another store account: they run on).
    static func orderIDs(in orders: [Order], facts: [String: ProductFacts], endedBy changes: [Order],
                         now: Date) -> Set<String> {
        let ended = orderIDs(endedBy: changes, in: orders, now: now)
        return ended.union(orderIDs(in: orders.filter { !ended.contains($0.id) }, facts: facts, now: now))
    }

    /// The order each group's status is read from, by group id: the latest
    /// paid subscription of the group that no other user's change ended by
    /// `now`, else the latest one (its plan ended by that change).
    static func latestPerGroup(_ orders: [Order], facts: [String: ProductFacts], endedBy changes: [Order],
                               now: Date) -> [String: Order] {
        let ended = orderIDs(endedBy: changes, in: orders, now: now)
        var live: [String: Order] = [:]
        var any: [String: Order] = [:]
        for order in orders where order.status.isPaidForSupersession {
            guard let fact = facts[order.id], fact.type == .autoRenewable, let group = fact.groupID,
                  let transaction = order.transaction else { continue }
            if any[group]?.transaction.map({ $0.purchaseDate > transaction.purchaseDate }) != true { any[group] = order }
            if !ended.contains(order.id),
               live[group]?.transaction.map({ $0.purchaseDate > transaction.purchaseDate }) != true { live[group] = order }
        }
        return any.merging(live) { _, live in live }
    }

    /// The orders of `orders` whose subscription another user changed later, by `now`.
    static func orderIDs(endedBy changes: [Order], in orders: [Order], now: Date) -> Set<String> {
        guard !changes.isEmpty else { return [] }
        var ended: Set<String> = []
        for order in orders {
            if let transaction = order.transaction, end(of: transaction, by: changes, now: now) != nil { ended.insert(order.id) }
        }
        return ended
    }

    /// When the first of `changes` later than `transaction` in its
    /// subscription (same original transaction id) began, if one has by `now`
    /// (`.distantFuture`: whenever it begins).
    /// Later in the store's order, as renewals follow it (``Reconciler``): by
    /// date, then, for one date (an Ask to Buy approval dated when it was
    /// asked), by the store's transaction ids.
    static func end(of transaction: StoreTransaction, by changes: [Order], now: Date) -> Date? {
        changes.compactMap { change -> Date? in
            guard let later = change.transaction, later.originalID == transaction.originalID,
                  Reconciler.isBefore(transaction, later), later.purchaseDate <= now else { return nil }
            return later.purchaseDate
        }.min()
    }
}
