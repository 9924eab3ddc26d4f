import Foundation

extension OrderStore {
    /// The default for a store that keeps no index by original transaction
    /// id: the order holding the purchase's first transaction, if any.
    public func orders(originalTransactionID: String) async throws -> [Order] {
        try await order(transactionID: originalTransactionID).map { [$0] }?
            .filter { $0.originalTransactionID == originalTransactionID } ?? []
    }
}

extension Order {
    /// The id of the purchase this order's transaction belongs to, when that
    /// is not the transaction itself (a renewal, or a change of tier): what
    /// the stores index for ``OrderStore/orders(originalTransactionID:)``.
    /// The order of the first transaction is found by its transaction id.
    var laterTransactionOriginalID: String? {
        guard let original = originalTransactionID, original != transactionID else { return nil }
        return original
    }
}
