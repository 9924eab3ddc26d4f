/// An ``OrderStore`` in memory: for tests, previews and the simulator. Nothing
/// survives the process; use `FileOrderStore` in an app.
public actor InMemoryOrderStore: OrderStore {
    private var open: [String: Order] = [:]
    private var archived: [String: Order] = [:]
    private var byTransaction: [String: String] = [:]
    private var byToken: [String: String] = [:]

    /// Creates an empty store, or one holding `orders` as open orders.
    public init(orders: [Order] = []) {
        for order in orders {
            open[order.id] = order
            if let transactionID = order.transactionID { byTransaction[transactionID] = order.id }
            if let token = order.token { byToken[token] = order.id }
        }
    }

    private func insert(_ order: Order) {
        // Unlink the old transaction only if it still points here: another order may have claimed it since.
        if let old = open[order.id] ?? archived[order.id], let oldTransaction = old.transactionID,
           oldTransaction != order.transactionID, byTransaction[oldTransaction] == order.id {
            byTransaction[oldTransaction] = nil
        }
        archived[order.id] = nil
        open[order.id] = order
        if let transactionID = order.transactionID { byTransaction[transactionID] = order.id }
        if let token = order.token { byToken[token] = order.id }
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
        if let order = open.removeValue(forKey: orderID) ?? archived.removeValue(forKey: orderID),
           let transactionID = order.transactionID, byTransaction[transactionID] == orderID {
            byTransaction[transactionID] = nil
        }
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
