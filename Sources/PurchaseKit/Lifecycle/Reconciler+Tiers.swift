import Foundation

/// How the reconciler reads the tier a subscription stood on (rule 4): the
/// purchase's transactions here in the store's order.
extension Reconciler {
    /// The latest run of one product in `chain` (orders holding transactions
    /// of one purchase), by purchase date: the tier the subscription stood on,
    /// with the orders that hold it, oldest first. Empty for an empty chain.
    /// Transactions of one date are in the store's order: App Store
    /// transaction ids are numbers that grow.
    static func latestTier(of chain: [Order]) -> [Order] {
        let dated = chain.compactMap { order in order.transaction.map { (order, $0) } }
            .sorted { a, b in isBefore(a.1, b.1) || (!isBefore(b.1, a.1) && a.0.id < b.0.id) }
        guard let product = dated.last?.1.productID else { return [] }
        let run = dated.reversed().prefix { $0.1.productID == product }
        return run.reversed().map(\.0)
    }

    /// Whether the store made `a` before `b`: by purchase date, then by id:
    /// numerically between numbers (the App Store's), numbers before other
    /// ids, and other ids by their text, so that the order is total.
    package static func isBefore(_ a: StoreTransaction, _ b: StoreTransaction) -> Bool {
        if a.purchaseDate != b.purchaseDate { return a.purchaseDate < b.purchaseDate }
        switch (UInt64(a.id), UInt64(b.id)) {
        case let (x?, y?): return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): return a.id < b.id
        }
    }
}
