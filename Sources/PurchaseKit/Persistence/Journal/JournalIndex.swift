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
        /// Its transaction's original id, when not the transaction's own (a renewal, a change of tier).
        var laterTransactionOriginalID: String?
        var updatedAt: Date
        /// When the order was last put, counted in puts: the transaction id
        /// and token it holds are its own since then (see ``putSequence``).
        var sequence: UInt64 = 0
    }

    private(set) var entries: [String: Entry] = [:]
    private(set) var openOrders: [String: Order] = [:]
    /// The binary form of every archived and compacted order.
    private(set) var stored: [String: Data] = [:]
    private var idByTransaction: [String: String] = [:]
    private var idByToken: [String: String] = [:]
    private var purchases = PurchaseIndex()
    /// Each user's orders, built at the first question about a user rather
    /// than at launch (most launches ask none), then kept up to date.
    private var openIDsByUser: [String: Set<String>] = [:]
    private var storedIDsByUser: [String: Set<String>] = [:]
    private var usersAreIndexed = false
    /// Every spend, by user, then by spend id (see ``JournalIndex/recordSpend(_:)``).
    var spends: [String: [String: ConsumableSpend]] = [:]
    /// How the store last saw each subscription's renewal, by user, then by original transaction id.
    var renewals: [String: [String: RenewalStateRecord]] = [:]
    /// The ``FileOrderStore`` spends files the last load's import could not
    /// read (never written to a file): the spends of their users are not
    /// answered, nor new ones recorded, since a balance without them would be
    /// too high, until a later load reads them.
    var unreadSpendFiles: Set<String> = []
    /// The ``FileOrderStore`` order files the last load's import left in place
    /// unread (an I/O error) or could not hold (too large); never written to a
    /// file. The orders in them exist but are not here, so a lookup that finds
    /// nothing is no proof that no order holds the transaction or token.
    var unreadOrderFiles: Set<String> = []
    /// The ids of removed orders, kept for good (every snapshot repeats them):
    /// an import of ``FileOrderStore`` files skips them, so a copy left behind
    /// by a failed or unflushed deletion cannot bring a removed order back.
    private(set) var removedIDs: Set<String> = []
    /// The puts so far. Each put links the order's transaction id and token
    /// to it, taking them from any other order that holds them too, so a
    /// link belongs to the holder put last: a snapshot puts the orders in
    /// this order, and a launch links them as they were. Moving an order to
    /// the archive or compacting it is no put (see ``restow(_:bytes:place:)``).
    private var putSequence: UInt64 = 0
    /// The orders whose transaction or token link a later put of another
    /// order took. A put of any other order that keeps its transaction and
    /// token finds its links pointing to it still, and writes none.
    private var displaced: Set<String> = []

    /// Makes room for `count` orders at once, so that a launch does not grow the tables step by step.
    mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
        openOrders.reserveCapacity(count)
        idByToken.reserveCapacity(count)
    }

    func entry(for id: String) -> Entry? { entries[id] }

    func orderID(forTransaction transactionID: String) -> String? { idByTransaction[transactionID] }

    func orderID(forToken token: String) -> String? { idByToken[token] }

    /// The ids of the orders holding a transaction of the purchase `originalID`:
    /// the holder of its first transaction, then those of its later ones.
    func orderIDs(forPurchase originalID: String) -> [String] {
        purchases.orderIDs(forPurchase: originalID, firstHolder: idByTransaction[originalID]) {
            entries[$0]?.laterTransactionOriginalID != nil
        }
    }

    /// Every order id of one user, open, archived and compacted.
    mutating func orderIDs(forUser userID: String) -> [String] {
        indexUsers()
        return Array(openIDsByUser[userID] ?? []) + Array(storedIDsByUser[userID] ?? [])
    }

    /// The open orders of one user, oldest first.
    mutating func openOrders(forUser userID: String) -> [Order] {
        indexUsers()
        return Self.inCreationOrder((openIDsByUser[userID] ?? []).compactMap { openOrders[$0] })
    }

    private mutating func indexUsers() {
        guard !usersAreIndexed else { return }
        usersAreIndexed = true
        for (id, entry) in entries { addToUser(id, entry) }
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
    mutating func putOpen(_ order: consuming Order) {
        put(order.id, Entry(place: .open, userID: order.userID, token: order.token, transactionID: order.transactionID,
                            laterTransactionOriginalID: order.laterTransactionOriginalID, updatedAt: order.updatedAt))
        openOrders[order.id] = order
    }

    /// Records an archived or compacted order from its binary form.
    mutating func putStored(_ keys: OrderBinaryCoding.Keys, bytes: Data, place: Place) {
        put(keys.id, Entry(place: place, userID: keys.userID, token: keys.token, transactionID: keys.transactionID,
                           laterTransactionOriginalID: keys.laterTransactionOriginalID, updatedAt: keys.updatedAt))
        stored[keys.id] = bytes
    }

    /// Files `entry` as the latest put of order `id`: its sequence, its links,
    /// and no longer among the removed. The caller keeps the order itself.
    private mutating func put(_ id: String, _ filed: Entry) {
        putSequence += 1
        var entry = filed
        entry.sequence = putSequence
        // One lookup for the usual case, a new id (every order a launch reads).
        let old = entries.updateValue(entry, forKey: id)
        if let old { unlink(id, old, keeping: entry) }
        if !removedIDs.isEmpty { removedIDs.remove(id) }
        link(id, entry, replacing: old)
    }

    /// Moves an open order to the archive. Returns false when there is no such open order.
    @discardableResult
    mutating func archive(id: String) -> Bool {
        guard let order = openOrders[id] else { return false }
        var writer = ByteWriter()
        OrderBinaryCoding.encode(order, into: &writer)
        restow(id, bytes: Data(writer.bytes), place: .archived)
        return true
    }

    /// Replaces the binary form of a held order that is moved, not saved: to
    /// the archive (``archive(id:)``), or compacted (`bytes` then encode the
    /// same id, user, token, transaction id and last change, less of the
    /// rest). The order keeps its place among the puts and takes no
    /// transaction id or token back from an order put after it: only a save
    /// claims them, as in ``InMemoryOrderStore``, and a snapshot, written in
    /// put order, keeps them where they are.
    mutating func restow(_ id: String, bytes: Data, place: Place) {
        guard var entry = entries[id] else { return }
        let wasOpen = entry.place == .open
        entry.place = place
        entries[id] = entry
        stored[id] = bytes
        guard wasOpen else { return }
        openOrders[id] = nil
        if usersAreIndexed {
            Self.drop(id, of: entry.userID, from: &openIDsByUser)
            addToUser(id, entry)
        }
    }

    /// Forgets an order, keeping its id among the removed ones. Returns whether there was one.
    @discardableResult
    mutating func remove(id: String) -> Bool {
        guard let old = entries.removeValue(forKey: id) else { return false }
        unlink(id, old, keeping: nil)
        if !displaced.isEmpty { displaced.remove(id) }
        removedIDs.insert(id)
        return true
    }

    /// Keeps `id`, of an order the index does not hold, among the removed
    /// ones. Returns whether it was not among them yet.
    @discardableResult
    mutating func markRemoved(_ id: String) -> Bool {
        guard entries[id] == nil else { return false }
        return removedIDs.insert(id).inserted
    }

    /// Whether the index holds the order, or removed it (and did not save it again since).
    func holdsOrRemoved(_ id: String) -> Bool { entries[id] != nil || removedIDs.contains(id) }

    /// Drops what `old`, the entry an order had, put in the other tables. The
    /// transaction and token links go only if they still point here and the
    /// new version (`kept`) does not keep them: another order may have
    /// claimed them since.
    private mutating func unlink(_ id: String, _ old: Entry, keeping kept: Entry?) {
        if let oldTransaction = old.transactionID, oldTransaction != kept?.transactionID, idByTransaction[oldTransaction] == id {
            idByTransaction[oldTransaction] = nil
        }
        if let oldToken = old.token, oldToken != kept?.token, idByToken[oldToken] == id { idByToken[oldToken] = nil }
        if old.laterTransactionOriginalID != kept?.laterTransactionOriginalID {
            purchases.unlink(id, original: old.laterTransactionOriginalID)
        }
        if old.place == .open {
            if kept?.place != .open { openOrders[id] = nil }
            if usersAreIndexed, kept?.place != .open || kept?.userID != old.userID { Self.drop(id, of: old.userID, from: &openIDsByUser) }
        } else {
            if kept == nil || kept?.place == .open { stored[id] = nil }
            if usersAreIndexed, kept == nil || kept?.place == .open || kept?.userID != old.userID {
                Self.drop(id, of: old.userID, from: &storedIDsByUser)
            }
        }
    }

    /// Links a put order's keys to it; `old` is the entry its last put left.
    /// A put claims its transaction and token. Most puts move an order along
    /// with the ones its last put claimed, which no other put took since (it
    /// is not ``displaced``): those links stand, and are not hashed again.
    private mutating func link(_ id: String, _ entry: Entry, replacing old: Entry?) {
        let relink = old == nil || !displaced.isEmpty && displaced.remove(id) != nil
        if let transactionID = entry.transactionID, relink || transactionID != old?.transactionID {
            displace(idByTransaction.updateValue(id, forKey: transactionID), by: id)
        }
        if let token = entry.token, relink || token != old?.token {
            displace(idByToken.updateValue(id, forKey: token), by: id)
        }
        // Sets, not claims: what ``unlink(_:_:keeping:)`` left stands.
        guard let old else {
            purchases.link(id, original: entry.laterTransactionOriginalID)
            if usersAreIndexed { addToUser(id, entry) }
            return
        }
        if entry.laterTransactionOriginalID != old.laterTransactionOriginalID {
            purchases.link(id, original: entry.laterTransactionOriginalID)
        }
        if usersAreIndexed, (old.place == .open) != (entry.place == .open) || old.userID != entry.userID {
            addToUser(id, entry)
        }
    }

    /// A link now points at order `id`: the order it pointed at before, if another, is displaced.
    private mutating func displace(_ previous: String?, by id: String) {
        if let previous, previous != id { displaced.insert(previous) }
    }

    private mutating func addToUser(_ id: String, _ entry: Entry) {
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

    /// Oldest first; the id breaks ties so the order is stable. Sorts small
    /// keys, not orders, so that a launch with many open orders copies each
    /// order once.
    static func inCreationOrder<Orders: Collection<Order>>(_ orders: Orders) -> [Order] {
        var keys: [(createdAt: Date, position: Orders.Index)] = []
        keys.reserveCapacity(orders.count)
        for position in orders.indices { keys.append((orders[position].createdAt, position)) }
        keys.sort { a, b in
            if a.createdAt != b.createdAt { return a.createdAt < b.createdAt }
            return orders[a.position].id < orders[b.position].id
        }
        return keys.map { orders[$0.position] }
    }
}
