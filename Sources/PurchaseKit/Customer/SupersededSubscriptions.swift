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

    /// The orders of `orders` (one user's) whose subscription another user
    /// changed later, by `now` (`changes`: the other users' paid orders): on
    /// a store account several app users share, the store then charges for
    /// the other user's tier. Only that subscription ends: the user's others
    /// in the group (bought with another store account) run on.
    static func orderIDs(endedBy changes: [Order], in orders: [Order], now: Date) -> Set<String> {
        guard !changes.isEmpty else { return [] }
        var ended: Set<String> = []
        for order in orders {
            if let transaction = order.transaction, end(of: transaction, by: changes, now: now) != nil { ended.insert(order.id) }
        }
        return ended
    }

    /// When the first of `changes` later than `transaction` in its
    /// subscription (same original transaction id) began, if one has by `now`.
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
