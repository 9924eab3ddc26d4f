import Foundation

/// Everything ``JournalOrderStore`` holds, in memory: open orders whole, and
/// archived and compacted ones in their binary form (``OrderBinaryCoding``),
/// decoded when asked for. The files only ever repeat what is here, so a
/// lookup never touches the disk, and a save or a lookup costs the same
/// however many orders are stored.
struct JournalIndex: Sendable {
    /// Where an order's current version stands.
    enum Place: UInt8, Sendable {
        case open = 1
        /// Archived, kept whole for the retention period.
        case archived = 2
        /// Archived past the retention: receipt, metadata and hint dropped, the rest kept for good.
        case compacted = 3
    }

    /// What lookups need to know of an order, wherever it stands.
    struct Entry: Sendable {
        var place: Place
        var userID: String
        var token: String?
        var transactionID: String?
        var updatedAt: Date
    }

    private(set) var entries: [String: Entry] = [:]
    private(set) var openOrders: [String: Order] = [:]
    /// The binary form of every archived and compacted order.
    private(set) var stored: [String: Data] = [:]
    private var idByTransaction: [String: String] = [:]
    private var idByToken: [String: String] = [:]
    private var openIDsByUser: [String: Set<String>] = [:]
    private var storedIDsByUser: [String: Set<String>] = [:]

    /// Makes room for `count` orders at once, so that a launch does not grow the tables step by step.
    mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
        openOrders.reserveCapacity(count)
        idByToken.reserveCapacity(count)
        idByTransaction.reserveCapacity(count)
    }

    func entry(for id: String) -> Entry? { entries[id] }

    func orderID(forTransaction transactionID: String) -> String? { idByTransaction[transactionID] }

    func orderID(forToken token: String) -> String? { idByToken[token] }

    /// Every order id of one user, open, archived and compacted.
    func orderIDs(forUser userID: String) -> [String] {
        Array(openIDsByUser[userID] ?? []) + Array(storedIDsByUser[userID] ?? [])
    }

    /// The open orders of one user, oldest first.
    func openOrders(forUser userID: String) -> [Order] {
        Self.inCreationOrder((openIDsByUser[userID] ?? []).compactMap { openOrders[$0] })
    }

    /// The order with this id, wherever it stands (decoding an archived one).
    func order(id: String) -> Order? {
        if let open = openOrders[id] { return open }
        guard let bytes = stored[id] else { return nil }
        // Stored bytes were decoded once when they were read or written; they decode again.
        return bytes.withUnsafeBytes { try? OrderBinaryCoding.decode($0) }
    }

    // MARK: Changes

    /// Makes `order` the open version of its id, replacing whatever was known about it.
    mutating func putOpen(_ order: Order) {
        unlink(order.id, keepingTransaction: order.transactionID, token: order.token)
        let entry = Entry(place: .open, userID: order.userID, token: order.token,
                          transactionID: order.transactionID, updatedAt: order.updatedAt)
        entries[order.id] = entry
        openOrders[order.id] = order
        link(order.id, entry)
    }

    /// Records an archived or compacted order from its binary form.
    mutating func putStored(_ keys: OrderBinaryCoding.Keys, bytes: Data, place: Place) {
        unlink(keys.id, keepingTransaction: keys.transactionID, token: keys.token)
        let entry = Entry(place: place, userID: keys.userID, token: keys.token,
                          transactionID: keys.transactionID, updatedAt: keys.updatedAt)
        entries[keys.id] = entry
        stored[keys.id] = bytes
        link(keys.id, entry)
    }

    /// Moves an open order to the archive. Returns false when there is no such open order.
    @discardableResult
    mutating func archive(id: String) -> Bool {
        guard let order = openOrders[id] else { return false }
        var writer = ByteWriter()
        OrderBinaryCoding.encode(order, into: &writer)
        let keys = OrderBinaryCoding.Keys(id: id, userID: order.userID, token: order.token,
                                          updatedAt: order.updatedAt, transactionID: order.transactionID)
        putStored(keys, bytes: Data(writer.bytes), place: .archived)
        return true
    }

    /// Forgets an order. Returns whether there was one.
    @discardableResult
    mutating func remove(id: String) -> Bool {
        guard entries[id] != nil else { return false }
        unlink(id, keepingTransaction: nil, token: nil)
        return true
    }

    /// Drops an order's entry and its place in the tables. The transaction and
    /// token links go only if they still point here and the new version does
    /// not keep them: another order may have claimed them since.
    @discardableResult
    private mutating func unlink(_ id: String, keepingTransaction transactionID: String?, token: String?) -> Entry? {
        guard let old = entries.removeValue(forKey: id) else { return nil }
        if let oldTransaction = old.transactionID, oldTransaction != transactionID, idByTransaction[oldTransaction] == id {
            idByTransaction[oldTransaction] = nil
        }
        if let oldToken = old.token, oldToken != token, idByToken[oldToken] == id { idByToken[oldToken] = nil }
        if old.place == .open {
            openOrders[id] = nil
            Self.drop(id, of: old.userID, from: &openIDsByUser)
        } else {
            stored[id] = nil
            Self.drop(id, of: old.userID, from: &storedIDsByUser)
        }
        return old
    }

    private mutating func link(_ id: String, _ entry: Entry) {
        if let transactionID = entry.transactionID { idByTransaction[transactionID] = id }
        if let token = entry.token { idByToken[token] = id }
        if entry.place == .open {
            openIDsByUser[entry.userID, default: []].insert(id)
        } else {
            storedIDsByUser[entry.userID, default: []].insert(id)
        }
    }

    private static func drop(_ id: String, of userID: String, from table: inout [String: Set<String>]) {
        table[userID]?.remove(id)
        if table[userID]?.isEmpty == true { table[userID] = nil }
    }

    /// Oldest first; the id breaks ties so the order is stable. Sorts positions,
    /// not orders, so that a launch with many open orders moves each order once.
    static func inCreationOrder(_ orders: [Order]) -> [Order] {
        let positions = orders.indices.sorted { a, b in
            let left = orders[a].createdAt, right = orders[b].createdAt
            if left != right { return left < right }
            return orders[a].id < orders[b].id
        }
        return positions.map { orders[$0] }
    }
}
