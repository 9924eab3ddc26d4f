import Foundation

extension PurchaseEngine {
    /// Every order of a user, open and archived, newest first: purchases of
    /// every outcome (delivered, pending, failed, cancelled, refunded),
    /// restores, renewals and purchases made elsewhere — what a "purchase
    /// history" screen or a support tool lists.
    ///
    /// "Newest" is by when the user paid (the store transaction's purchase
    /// date) for a paid order, else by when the order was made; equal dates
    /// are ordered by order id, newest last made first. Read from the order
    /// store, so it survives relaunches; archived orders keep their
    /// transaction (a durable store may drop their receipt and metadata).
    ///
    /// - Parameters:
    ///   - userID: Whose orders.
    ///   - paidOnly: true leaves out orders without a store transaction
    ///     (cancelled, failed, waiting): the user's transactions.
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the orders cannot be read.
    public func history(user userID: String, paidOnly: Bool = false) async throws -> [Order] {
        let stored: [Order]
        do {
            stored = try await store.orders(forUser: userID)
        } catch {
            throw PurchaseKitError.wrap(error, as: .persistenceReadFailed, "The orders of user '\(userID)' could not be read.",
                                        advice: "Try again; check the order store's location and permissions.")
        }
        // The engine's copy of an open order is the one last saved.
        var byID: [String: Order] = Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        for order in orders.values where order.userID == userID { byID[order.id] = order }
        return byID.values
            .filter { !paidOnly || $0.transaction != nil }
            .sorted { Self.historyKey($0) > Self.historyKey($1) }
    }

    private static func historyKey(_ order: Order) -> (Date, Date, String) {
        (order.transaction?.purchaseDate ?? order.createdAt, order.createdAt, order.id)
    }
}
