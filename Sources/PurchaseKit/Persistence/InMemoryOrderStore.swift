/// An ``OrderStore`` in memory: for tests, previews and the simulator. Nothing
/// survives the process; use `JournalOrderStore` in an app.
///
/// A class behind one lock rather than an actor: every call is a few
/// dictionary operations, so it runs on the caller's thread instead of
/// hopping to an executor of its own and back. A user's orders are found
/// through an index, not by looking at every order: reading one user's
/// customer info costs the same with a thousand orders stored or a hundred
/// thousand.
public final class InMemoryOrderStore: OrderStore, Sendable {
    private struct State: Sendable {
        var open: [String: Order] = [:]
        var archived: [String: Order] = [:]
        var byTransaction: [String: String] = [:]
        var byToken: [String: String] = [:]
        /// The ids of every order, open or archived, of each user.
        var byUser: [String: Set<String>] = [:]
        var purchases = PurchaseIndex()
        var spendsByUser: [String: [String: ConsumableSpend]] = [:]
        var renewalsByUser: [String: [String: RenewalStateRecord]] = [:]
        /// Orders whose transaction or token another order's save claimed
        /// since: their next save looks up whether their links still point
        /// to them. Every other order's do, so its saves look up neither.
        var displaced: Set<String> = []

        func order(id: String) -> Order? { open[id] ?? archived[id] }

        /// Saves `order` as an open order, or `intoArchive`, wherever it was before.
        mutating func insert(_ order: Order, intoArchive: Bool = false) {
            // Unlink the old transaction and token only if they still point here: another order may have claimed them since.
            var old: Order?
            if intoArchive {
                old = open.removeValue(forKey: order.id)
                let earlier = archived.updateValue(order, forKey: order.id)
                if old == nil { old = earlier }
            } else {
                old = open.updateValue(order, forKey: order.id)
                if old == nil { old = archived.removeValue(forKey: order.id) }
            }
            if let old { unlink(old, keeping: order) }
            if old?.userID != order.userID { byUser[order.userID, default: []].insert(order.id) }
            // Most saves move an order along without a new token or transaction,
            // and nobody claimed its links since: those stand.
            let relink = !displaced.isEmpty && displaced.remove(order.id) != nil
            if let transactionID = order.transactionID, transactionID != old?.transactionID || relink && byTransaction[transactionID] != order.id {
                displace(byTransaction.updateValue(order.id, forKey: transactionID), by: order.id)
            }
            if let token = order.token, token != old?.token || relink && byToken[token] != order.id {
                displace(byToken.updateValue(order.id, forKey: token), by: order.id)
            }
            if order.laterTransactionOriginalID != old?.laterTransactionOriginalID {
                purchases.link(order.id, original: order.laterTransactionOriginalID)
            }
        }

        /// A link now points at order `id`: the order it pointed at before, if another, is displaced.
        private mutating func displace(_ previous: String?, by id: String) {
            if let previous, previous != id { displaced.insert(previous) }
        }

        mutating func unlink(_ old: Order, keeping new: Order?) {
            if let transaction = old.transactionID, transaction != new?.transactionID, byTransaction[transaction] == old.id {
                byTransaction[transaction] = nil
            }
            if let token = old.token, token != new?.token, byToken[token] == old.id {
                byToken[token] = nil
            }
            if old.laterTransactionOriginalID != new?.laterTransactionOriginalID {
                purchases.unlink(old.id, original: old.laterTransactionOriginalID)
            }
            if old.userID != new?.userID, var ids = byUser.removeValue(forKey: old.userID) {
                ids.remove(old.id)
                if !ids.isEmpty { byUser[old.userID] = ids }
            }
        }

        /// The user's orders, open and archived (or open only), oldest first.
        func orders(forUser userID: String, openOnly: Bool) -> [Order] {
            (byUser[userID] ?? []).compactMap { openOnly ? open[$0] : order(id: $0) }.sorted(by: Order.creationOrder)
        }

        func orders(originalTransactionID original: String) -> [Order] {
            purchases.orderIDs(forPurchase: original, firstHolder: byTransaction[original]) {
                order(id: $0)?.laterTransactionOriginalID != nil
            }
            .compactMap { order(id: $0) }.sorted(by: Order.creationOrder)
        }
    }

    private let state: Locked<State>

    /// Creates an empty store, or one holding `orders` as open orders.
    public init(orders: [Order] = []) {
        var state = State()
        // As saves, one after the other: of two orders with one id, the later stands.
        for order in orders { state.insert(order) }
        self.state = Locked(state)
    }

    public func save(_ order: Order) async {
        state.withLock { $0.insert(order) }
    }

    /// Saves the order straight into the archive, in one pass (see ``ArchivingOrderStore``).
    package func saveArchived(_ order: Order) async {
        state.withLock { $0.insert(order, intoArchive: true) }
    }

    public func loadOpenOrders() async -> OrderLoadReport {
        OrderLoadReport(orders: state.withLock { Array($0.open.values) }.sorted(by: Order.creationOrder))
    }

    public func openOrders(forUser userID: String) async -> [Order] {
        state.withLock { $0.orders(forUser: userID, openOnly: true) }
    }

    public func orders(forUser userID: String) async -> [Order] {
        state.withLock { $0.orders(forUser: userID, openOnly: false) }
    }

    public func order(id: String) async -> Order? {
        state.withLock { $0.order(id: id) }
    }

    public func order(transactionID: String) async -> Order? {
        state.withLock { s in s.byTransaction[transactionID].flatMap { s.order(id: $0) } }
    }

    public func orders(originalTransactionID: String) async -> [Order] {
        state.withLock { $0.orders(originalTransactionID: originalTransactionID) }
    }

    /// The order whose payment carried `token`, open or archived. Archived
    /// orders are kept whole for the life of the store.
    public func order(token: String) async -> Order? {
        state.withLock { s in s.byToken[token].flatMap { s.order(id: $0) } }
    }

    public func archive(orderID: String) async throws {
        let moved = state.withLock { s -> Bool in
            guard let order = s.open.removeValue(forKey: orderID) else { return false }
            s.archived[orderID] = order
            return true
        }
        guard moved else {
            throw PurchaseKitError(.orderNotFound, "There is no open order '\(orderID)' to archive.",
                                   advice: "Reload the open orders; it may have been archived already.", orderID: orderID)
        }
    }

    public func remove(orderID: String) async {
        state.withLock { s in
            if let order = s.open.removeValue(forKey: orderID) ?? s.archived.removeValue(forKey: orderID) {
                s.unlink(order, keeping: nil)
            }
            if !s.displaced.isEmpty { s.displaced.remove(orderID) }
        }
    }

    public func recordSpend(_ spend: ConsumableSpend) async throws -> ConsumableSpend {
        state.withLock { s in
            if let stored = s.spendsByUser[spend.userID]?[spend.id] { return stored }
            s.spendsByUser[spend.userID, default: [:]][spend.id] = spend
            return spend
        }
    }

    public func spends(forUser userID: String) async throws -> [ConsumableSpend] {
        ConsumableSpend.chronological(state.withLock { ($0.spendsByUser[userID] ?? [:]).values })
    }

    public func saveRenewalState(_ record: RenewalStateRecord) async throws {
        state.withLock { s in
            guard record.replaces(s.renewalsByUser[record.userID]?[record.originalTransactionID]) else { return }
            s.renewalsByUser[record.userID, default: [:]][record.originalTransactionID] = record
        }
    }

    public func renewalStates(forUser userID: String) async throws -> [RenewalStateRecord] {
        RenewalStateRecord.sorted(state.withLock { ($0.renewalsByUser[userID] ?? [:]).values })
    }

    /// Every order, open and archived, oldest first (for tests and diagnostics).
    public func allOrders() async -> [Order] {
        state.withLock { Array($0.open.values) + Array($0.archived.values) }.sorted(by: Order.creationOrder)
    }

    /// Every archived order (for tests and diagnostics).
    public func archivedOrders() async -> [Order] {
        state.withLock { Array($0.archived.values) }.sorted(by: Order.creationOrder)
    }
}

extension InMemoryOrderStore: ArchivingOrderStore {}
