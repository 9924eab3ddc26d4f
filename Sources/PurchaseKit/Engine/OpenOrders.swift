import Foundation

/// The engine's open orders by id, with the indexes that let a store update
/// find the orders it may belong to without looking at every open order.
///
/// A store update is matched by its token, its transaction's ids, or (for a
/// payment whose token the store lost) by product among the orders not paid
/// yet: each lookup below returns exactly the open orders a full scan with
/// the same test would, so a launch that loads many resting orders (Ask to
/// Buy waiting, say) does not make every later payment slower.
///
/// Lookups return orders oldest first (by creation date, then id), so that
/// the same orders always match the same way.
struct OpenOrders {
    private var byID: [String: Order] = [:]
    private var index: [Key: IDs] = [:]

    /// The open order with `id`; setting nil removes it.
    subscript(id: String) -> Order? {
        get { byID[id] }
        set {
            let old = if let newValue { byID.updateValue(newValue, forKey: id) } else { byID.removeValue(forKey: id) }
            // Only the keys that changed move: most saves change none, and a
            // payment keeps its token. The values are compared before any key
            // is made of them.
            refile(id, from: old?.token, to: newValue?.token, as: Key.token)
            refile(id, from: old?.transactionID, to: newValue?.transactionID, as: Key.transaction)
            refile(id, from: old?.originalTransactionID, to: newValue?.originalTransactionID, as: Key.original)
            refile(id, from: old.flatMap(Self.unpaidProduct), to: newValue.flatMap(Self.unpaidProduct), as: Key.unpaidProduct)
        }
    }

    /// Makes room for `count` open orders, and about two keys each.
    mutating func reserveCapacity(_ count: Int) {
        byID.reserveCapacity(count)
        index.reserveCapacity(count * 2)
    }

    /// Adds the orders a launch loaded, with room for them reserved up front.
    mutating func load(_ loaded: [Order]) {
        byID.reserveCapacity(byID.count + loaded.count)
        // About two keys an order: its token, and its product while unpaid or its transaction's ids once paid.
        index.reserveCapacity(index.count + loaded.count * 2)
        for order in loaded { self[order.id] = order }
    }

    /// Every open order, in no particular order.
    var values: Dictionary<String, Order>.Values { byID.values }
    var count: Int { byID.count }
    var isEmpty: Bool { byID.isEmpty }

    /// The open orders whose payment carried `token`.
    func orders(token: String) -> [Order] { orders(at: .token(token)) }

    /// Whether an open order's payment carried `token`.
    func holds(token: String) -> Bool { index[.token(token)] != nil }

    /// The open orders holding the transaction `id`.
    func orders(transactionID id: String) -> [Order] { orders(at: .transaction(id)) }

    /// The open orders holding a transaction of the purchase `originalID` (its renewals share it).
    func orders(originalTransactionID originalID: String) -> [Order] { orders(at: .original(originalID)) }

    /// Whether an open order other than `id` holds a transaction of the
    /// purchase `originalID`: one hash, no copy, for a check on every delivery.
    func holdsOthers(originalTransactionID originalID: String, than id: String) -> Bool {
        switch index[.original(originalID)] {
        case nil: false
        case .one(let only): only != id
        case .many: true
        }
    }

    /// The open orders of `productID` that hold no transaction yet: those a
    /// payment whose token the store lost may belong to.
    func unpaidOrders(productID: String) -> [Order] { orders(at: .unpaidProduct(productID)) }

    /// The open orders a paid `transaction` may belong to (see
    /// ``Reconciler/match(_:kind:answering:orders:currentUserID:storeInitiated:)``):
    /// those holding its token or the token of the payment it answers
    /// (`updateToken`), those holding its transaction or another of the same
    /// purchase, and, when the store lost its token, the unpaid orders of its
    /// product, which alone may be matched by time. Every other open order
    /// fails each of the reconciler's tests.
    func candidates(for transaction: StoreTransaction, answering updateToken: String?) -> [Order] {
        var keys: [Key] = [.transaction(transaction.id), .original(transaction.originalID)]
        if let token = transaction.orderToken { keys.append(.token(token)) }
        if let updateToken, updateToken != transaction.orderToken { keys.append(.token(updateToken)) }
        if transaction.orderToken == nil { keys.append(.unpaidProduct(transaction.productID)) }
        return orders(at: keys)
    }

    /// The open orders an update without a transaction (a payment still
    /// purchasing, deferred or failed) may belong to (see
    /// ``Reconciler/matchUnpaid(_:orders:)``): those holding its token, or
    /// without one, the unpaid orders of its product.
    func candidates(forUnpaid update: TransactionUpdate) -> [Order] {
        if let token = update.orderToken { return orders(token: token) }
        return unpaidOrders(productID: update.productID)
    }

    /// The orders filed under `key`, oldest first.
    private func orders(at key: Key) -> [Order] {
        switch index[key] {
        case nil: []
        case .one(let id): byID[id].map { [$0] } ?? []
        case .many(let many): oldestFirst(many)
        }
    }

    /// The orders filed under any of `keys`, each once, oldest first.
    private func orders(at keys: [Key]) -> [Order] {
        // Almost always every key that has an entry names the same one order:
        // it is kept aside, and no list of ids is built.
        var single: String?
        var ids: [String] = []
        var entries = 0
        for key in keys {
            guard let entry = index[key] else { continue }
            entries += 1
            if case .one(let id) = entry, ids.isEmpty, single == nil || single == id {
                single = id
                continue
            }
            // A second order: the one kept aside joins the list.
            if let kept = single { ids.append(kept) }
            single = nil
            switch entry {
            case .one(let id): ids.append(id)
            case .many(let many): ids.append(contentsOf: many)
            }
        }
        if let single { return byID[single].map { [$0] } ?? [] }
        if entries > 1 {
            var seen = Set<String>(minimumCapacity: ids.count)
            ids.removeAll { !seen.insert($0).inserted }
        }
        return oldestFirst(ids)
    }

    /// The open orders with these ids, oldest first.
    private func oldestFirst(_ ids: some Sequence<String>) -> [Order] {
        ids.compactMap { byID[$0] }.sorted(by: Order.creationOrder)
    }

    /// What an order is filed under.
    private enum Key: Hashable {
        case token(String)
        case transaction(String)
        case original(String)
        case unpaidProduct(String)
    }

    /// The orders filed under one key: almost always one, but every unpaid
    /// order of a product shares a key, so many are kept in a set.
    private enum IDs {
        case one(String)
        case many(Set<String>)

        /// Removes `id` from a shared entry, in place; one left is kept as `.one`.
        mutating func remove(_ id: String) {
            guard case .many(var ids) = self else { return }
            // Emptied first, so that `ids` holds the only reference to the set
            // and removing one id does not copy it.
            self = .one("")
            ids.remove(id)
            self = ids.count == 1 ? .one(ids.first!) : .many(ids)
        }
    }

    /// The product an order is filed under while it holds no transaction.
    private static func unpaidProduct(of order: Order) -> String? {
        order.isPaid ? nil : order.productID
    }

    /// Refiles `id` from the key `kind` makes of `old` to the one it makes of
    /// `new` (nil: none), when the two values differ.
    private mutating func refile(_ id: String, from old: String?, to new: String?, as kind: (String) -> Key) {
        guard old != new else { return }
        if let old { remove(id, at: kind(old)) }
        if let new { add(id, at: kind(new)) }
    }

    // One hash for the usual case (a key nobody else holds). A shared entry
    // comes out of the index whole, so that a large set changes in place
    // instead of being copied.
    private mutating func add(_ id: String, at key: Key) {
        switch index.updateValue(.one(id), forKey: key) {
        case nil: return
        case .one(let other): if other != id { index[key] = .many([other, id]) }
        case .many(var ids):
            ids.insert(id)
            index[key] = .many(ids)
        }
    }

    // A shared entry changes where it is: taking it out of the table and
    // putting it back moved every key after it in its run of the table.
    private mutating func remove(_ id: String, at key: Key) {
        guard let position = index.index(forKey: key) else { return }
        if case .one(let only) = index.values[position] {
            if only == id { index.remove(at: position) }
            return
        }
        index.values[position].remove(id)
    }
}
