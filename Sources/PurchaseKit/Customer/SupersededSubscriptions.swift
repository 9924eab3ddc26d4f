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
}
