/// The orders holding a later transaction of each purchase (a renewal, a
/// change of tier), by the purchase's original transaction id: the one table
/// behind ``OrderStore/orders(originalTransactionID:)`` in every store of the
/// library. The holder of a purchase's first transaction is found by its
/// transaction id, in the store's own table, and put in front.
struct PurchaseIndex: Sendable {
    private var later: [String: Set<String>] = [:]

    /// Records that order `id` holds a later transaction of `original`; nil: of none.
    mutating func link(_ id: String, original: String?) {
        guard let original else { return }
        later[original, default: []].insert(id)
    }

    /// Forgets that order `id` holds a later transaction of `original`.
    mutating func unlink(_ id: String, original: String?) {
        guard let original, var ids = later[original] else { return }
        ids.remove(id)
        later[original] = ids.isEmpty ? nil : ids
    }

    /// The ids of the orders holding a transaction of the purchase
    /// `originalID`: `firstHolder` (the order holding the transaction whose id
    /// is `originalID`), unless it holds a later transaction of another
    /// purchase, then the holders of the purchase's later transactions.
    func orderIDs(forPurchase originalID: String, firstHolder: String?,
                  holdsLaterTransaction: (String) -> Bool) -> [String] {
        let ids = later[originalID] ?? []
        guard let first = firstHolder, !ids.contains(first), !holdsLaterTransaction(first) else { return Array(ids) }
        return [first] + ids
    }
}
