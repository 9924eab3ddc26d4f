import Foundation

extension PurchaseEngine {
    /// Whether the user may still have an introductory offer in the
    /// subscription group. Apple gives one per group: a user who had any
    /// subscription there (bought, renewed, upgraded, from an offer code or a
    /// promotional offer, refunded or not) is not eligible, and neither is a
    /// store account that subscribed there already, when the store can tell.
    /// Answered from the user's stored orders, then the store.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the orders cannot be read.
    public func isEligibleForIntroOffer(groupID: String, user userID: String) async throws -> Bool {
        // A transaction the server rejected (another user's, say) proves nothing about this user.
        let paid = try await allOrders(of: userID).filter { $0.transaction != nil && $0.status != .rejected }
        let facts = await productFacts(for: paid)
        if paid.contains(where: { facts[$0.id]?.type == .autoRenewable && facts[$0.id]?.groupID == groupID }) {
            return false
        }
        let account = try? await withStore { await $0.isEligibleForIntroOffer(groupID: groupID) }
        return (account ?? nil) ?? true
    }
}
