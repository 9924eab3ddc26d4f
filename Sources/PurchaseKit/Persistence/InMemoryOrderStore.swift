/// An ``OrderStore`` in memory: for tests, previews and the simulator. Nothing
/// survives the process; use `JournalOrderStore` in an app.
public actor InMemoryOrderStore: OrderStore {
    private var open: [String: Order] = [:]
    private var archived: [String: Order] = [:]
    private var byTransaction: [String: String] = [:]
    private var byToken: [String: String] = [:]
    private var spendsByUser: [String: [String: ConsumableSpend]] = [:]
    private var renewalsByUser: [String: [String: RenewalStateRecord]] = [:]

    /// Creates an empty store, or one holding `orders` as open orders.
    public init(orders: [Order] = []) {
        for order in orders {
            open[order.id] = order
            if let transactionID = order.transactionID { byTransaction[transactionID] = order.id }
            if let token = order.token { byToken[token] = order.id }
        }
    }

    private func insert(_ order: Order) {
        // Unlink the old transaction and token only if they still point here: another order may have claimed them since.
        if let old = open[order.id] ?? archived[order.id] {
            unlink(old, keeping: order)
        }
        archived[order.id] = nil
        open[order.id] = order
        if let transactionID = order.transactionID { byTransaction[transactionID] = order.id }
        if let token = order.token { byToken[token] = order.id }
    }

    private func unlink(_ old: Order, keeping new: Order?) {
        if let transaction = old.transactionID, transaction != new?.transactionID, byTransaction[transaction] == old.id {
            byTransaction[transaction] = nil
        }
        if let token = old.token, token != new?.token, byToken[token] == old.id {
            byToken[token] = nil
        }
    }

    public func save(_ order: Order) {
        insert(order)
    }

    public func loadOpenOrders() -> OrderLoadReport {
        OrderLoadReport(orders: open.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) })
    }

    public func openOrders(forUser userID: String) -> [Order] {
        open.values.filter { $0.userID == userID }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    public func orders(forUser userID: String) -> [Order] {
        (open.values.filter { $0.userID == userID } + archived.values.filter { $0.userID == userID })
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    public func order(id: String) -> Order? {
        open[id] ?? archived[id]
    }

    public func order(transactionID: String) -> Order? {
        byTransaction[transactionID].flatMap { open[$0] ?? archived[$0] }
    }

    /// The order whose payment carried `token`, open or archived. Archived
    /// orders are kept whole for the life of the store.
    public func order(token: String) -> Order? {
        byToken[token].flatMap { open[$0] ?? archived[$0] }
    }

    public func archive(orderID: String) throws {
        guard let order = open.removeValue(forKey: orderID) else {
            throw PurchaseKitError(.orderNotFound, "There is no open order '\(orderID)' to archive.",
                                   advice: "Reload the open orders; it may have been archived already.", orderID: orderID)
        }
        archived[orderID] = order
    }

    public func remove(orderID: String) {
        if let order = open.removeValue(forKey: orderID) ?? archived.removeValue(forKey: orderID) {
            unlink(order, keeping: nil)
        }
    }

    // `async throws` like the requirement, so that a call on this type never
    // picks the protocol extension's default instead.
    public func recordSpend(_ spend: ConsumableSpend) async throws -> ConsumableSpend {
        if let stored = spendsByUser[spend.userID]?[spend.id] { return stored }
        spendsByUser[spend.userID, default: [:]][spend.id] = spend
        return spend
    }

    public func spends(forUser userID: String) async throws -> [ConsumableSpend] {
        ConsumableSpend.chronological((spendsByUser[userID] ?? [:]).values)
    }

    public func saveRenewalState(_ record: RenewalStateRecord) async throws {
        guard record.replaces(renewalsByUser[record.userID]?[record.originalTransactionID]) else { return }
        renewalsByUser[record.userID, default: [:]][record.originalTransactionID] = record
    }

    public func renewalStates(forUser userID: String) async throws -> [RenewalStateRecord] {
        RenewalStateRecord.sorted((renewalsByUser[userID] ?? [:]).values)
    }

    /// Every order, open and archived, oldest first (for tests and diagnostics).
    public func allOrders() -> [Order] {
        (Array(open.values) + Array(archived.values)).sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Every archived order (for tests and diagnostics).
    public func archivedOrders() -> [Order] {
        archived.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }
}
