import Foundation

extension FileOrderStore {
    /// Every open order, oldest first, and the entries the first load could not use.
    /// Problems are reported once: the entries are in the quarantine folder.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when a folder cannot be listed.
    public func loadOpenOrders() throws(PurchaseKitError) -> OrderLoadReport {
        try loadIfNeeded()
        let problems = unreportedProblems
        unreportedProblems = []
        return OrderLoadReport(orders: index.openOrders.values.sorted(by: Order.creationOrder),
                               problems: problems)
    }

    /// The open orders of one user, oldest first.
    public func openOrders(forUser userID: String) throws(PurchaseKitError) -> [Order] {
        try loadIfNeeded()
        return index.openOrders(forUser: userID)
    }

    /// Every order of one user, open, archived and compacted, oldest first.
    /// Archived ones are read from disk, so this costs one read per archived
    /// order of the user still within the retention; compacted ones come from
    /// memory, without their receipt, metadata and hint.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` or `persistenceCorrupt`
    ///   when an archived file cannot be read (a damaged one is quarantined).
    public func orders(forUser userID: String) throws(PurchaseKitError) -> [Order] {
        try loadIfNeeded()
        var result: [Order] = []
        for id in index.orderIDs(forUser: userID) {
            if let order = try order(id: id) { result.append(order) }
        }
        return result.sorted(by: Order.creationOrder)
    }

    /// The order with this id, open, archived or compacted (archived ones are
    /// read from disk; compacted ones come without their receipt, metadata and hint).
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceCorrupt`` when its archived file is damaged
    ///   (it is then quarantined), ``PurchaseKitError/Code/persistenceReadFailed`` when it cannot be read.
    public func order(id: String) throws(PurchaseKitError) -> Order? {
        try loadIfNeeded()
        guard let entry = index.entry(for: id) else { return nil }
        switch entry.place {
        case .open: return index.openOrders[id]
        case .archive: return try readArchived(id: id, entry: entry)
        case .ledger: return ledger.records[id]
        }
    }

    /// The order whose store transaction has this id, open, archived or compacted.
    /// A renewal finds its subscription's first order by passing the original transaction id.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when none is indexed but the
    ///   load left order files unread: the order may be in one of them.
    public func order(transactionID: String) throws(PurchaseKitError) -> Order? {
        try loadIfNeeded()
        guard let id = index.orderID(forTransaction: transactionID) else { return try noneHeld() }
        return try order(id: id)
    }

    /// Every order holding a transaction of the purchase `originalTransactionID`,
    /// open, archived or compacted, oldest first (archived ones are read from disk).
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` as ``order(transactionID:)`` does,
    ///   or when an archived one cannot be read.
    public func orders(originalTransactionID: String) async throws(PurchaseKitError) -> [Order] {
        try loadIfNeeded()
        let ids = index.orderIDs(forPurchase: originalTransactionID)
        guard !ids.isEmpty else { return try noneHeld().map { [$0] } ?? [] }
        var result: [Order] = []
        for id in ids {
            if let order = try order(id: id) { result.append(order) }
        }
        return result.sorted(by: Order.creationOrder)
    }

    /// The order whose payment carried this token, open, archived or compacted:
    /// tokens resolve for good, so that a payment the store reports late (after
    /// the order failed, was cancelled or was archived) still finds its order.
    /// An in-memory lookup; no directory is read.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` as ``order(transactionID:)`` does.
    public func order(token: String) throws(PurchaseKitError) -> Order? {
        try loadIfNeeded()
        guard let id = index.orderID(forToken: token) else { return try noneHeld() }
        return try order(id: id)
    }

    /// The answer of a lookup that found no order: none, unless the load left
    /// order files unread (an I/O error), whose orders are not indexed: one of
    /// them may be the one. Answering none then would let the engine credit
    /// that order's paid transaction to whoever is logged in, or to a new
    /// order that the unread one duplicates once a later launch reads it.
    private func noneHeld() throws(PurchaseKitError) -> Order? {
        guard !unreadOrderFiles.isEmpty else { return nil }
        throw PurchaseKitError(
            .persistenceReadFailed,
            "No order matches, but \(unreadOrderFiles.count) order files could not be read; one of them may.",
            advice: "They are read again at the next launch; see the problems the load reported.")
    }

    /// Every archived order, whole or compacted, oldest first (for diagnostics
    /// and tests; reads each archived file).
    public func archivedOrders() throws(PurchaseKitError) -> [Order] {
        try loadIfNeeded()
        var orders: [Order] = []
        for (id, entry) in index.archivedEntries {
            if let order = try readArchived(id: id, entry: entry) { orders.append(order) }
        }
        for (id, order) in ledger.records where index.entry(for: id)?.place == .ledger { orders.append(order) }
        return orders.sorted(by: Order.creationOrder)
    }

    /// Every order, open, archived and compacted, oldest first (for the fault
    /// simulation's checks). An archived order in `known` whose index entry
    /// has the same `updatedAt` is taken from there, not read again: the load
    /// validated every archived file it indexed, and an archived file changes
    /// only by a save that moves it back to the open orders.
    package func allOrders(reusing known: [String: Order] = [:]) throws(PurchaseKitError) -> [Order] {
        try loadIfNeeded()
        var orders = Array(index.openOrders.values)
        for (id, entry) in index.archivedEntries {
            if let order = known[id], order.updatedAt == entry.updatedAt {
                orders.append(order)
            } else if let order = try readArchived(id: id, entry: entry) {
                orders.append(order)
            }
        }
        for (id, order) in ledger.records where index.entry(for: id)?.place == .ledger { orders.append(order) }
        return orders.sorted(by: Order.creationOrder)
    }
}
