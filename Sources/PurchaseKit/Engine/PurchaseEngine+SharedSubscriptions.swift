import Foundation

// A subscription on a store account that several app users share: whose
// plan it is after another user changed it.

extension PurchaseEngine {
    /// The paid orders of other users than `userID` holding a transaction of
    /// one of the subscriptions in `orders` (the user's own): on a store
    /// account several app users share, another user's change of tier ends
    /// this user's plan, as the user's own change would. The store charges
    /// for the new tier from then on, and its renewals follow the user who
    /// changed it (``Reconciler``, rule 4). Paid means delivered, completed or
    /// refunded since, as for the user's own changes: a change the server
    /// refused, or one still owed its delivery or flagged, ends nothing here.
    ///
    /// One lookup of ``OrderStore/orders(originalTransactionID:)`` per
    /// subscription of the user, open, archived or compacted; none for a user
    /// without subscriptions.
    func paidChangesByOtherUsers(of userID: String, in orders: [Order]) async throws -> [Order] {
        var originals: [String] = []
        for order in orders {
            guard let transaction = order.transaction, order.status.isPaidForSupersession,
                  order.productType == .autoRenewable || (order.productType == nil && transaction.expirationDate != nil),
                  !originals.contains(transaction.originalID) else { continue }
            originals.append(transaction.originalID)
        }
        var changes: [Order] = []
        for original in originals {
            let holders: [Order]
            do {
                holders = try await store.orders(originalTransactionID: original)
            } catch {
                throw PurchaseKitError.wrap(error, as: .persistenceReadFailed,
                                            "The orders of subscription '\(original)' could not be read.",
                                            advice: "Try again; check the order store's location and permissions.")
            }
            changes += holders.filter { $0.userID != userID && $0.transaction != nil && $0.status.isPaidForSupersession }
        }
        return changes
    }
}
