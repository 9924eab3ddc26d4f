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

extension PurchaseEngine {
    /// The user's subscription orders that a later purchase in the same group
    /// replaced, judged over every paid order of the user, refunded ones
    /// included: an upgrade that is refunded later does not bring back the
    /// plan it replaced, whose rest the store refunded at the upgrade. Call it
    /// after `productFacts(for:)` has loaded the catalog the answer needs.
    func supersededSubscriptionOrders(of userID: String) async throws -> Set<String> {
        let paid = try await allOrders(of: userID).filter {
            $0.transaction != nil && ($0.status == .delivered || $0.status == .completed || $0.status == .revoked)
        }
        // The catalog as already loaded: the caller asked the store for what it
        // lacked, and an order nobody describes is judged by what it shows.
        return SupersededSubscriptions.orderIDs(in: paid, facts: ProductFacts.resolve(paid, catalog: products), now: clock.now)
    }
}
