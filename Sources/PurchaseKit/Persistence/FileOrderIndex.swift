import Foundation

/// What ``FileOrderStore`` knows about its orders without touching the disk:
/// where each order lives, which order holds each transaction and each token,
/// and each user's orders. Built once by the load; after that every save and
/// lookup costs the same however many orders are stored, because nothing
/// scans a directory.
///
/// Open orders are kept whole (the working set is small); archived ones only
/// as a summary, and are read from their file on demand; compacted ones live in
/// the ledger, which is in memory (see ``FileOrderLedger``).
struct FileOrderIndex {
    /// Where an order's current version is.
    enum Place: String, Sendable {
        /// A file in the open orders' folder.
        case open = "orders"
        /// A file in the archive folder.
        case archive
        /// A compact record in the ledger, with no file of its own.
        case ledger
    }

    /// Where one order lives and what lookups need to know about it.
    struct Entry: Equatable {
        /// The file's name; empty for an order in the ledger.
        var fileName: String
        var place: Place
        var transactionID: String?
        /// Its transaction's original id, when not the transaction's own (a renewal, a change of tier).
        var laterTransactionOriginalID: String?
        var token: String?
        var userID: String
        var updatedAt: Date
    }

    private(set) var entries: [String: Entry] = [:]
    private(set) var openOrders: [String: Order] = [:]
    /// The ids of the orders whose current version is an archived file.
    private(set) var archivedIDs: Set<String> = []
    private var idByFileName: [String: String] = [:]
    private var idByTransaction: [String: String] = [:]
    private var idByToken: [String: String] = [:]
    private var purchases = PurchaseIndex()
    private var idsByUser: [String: Set<String>] = [:]
    private var openIDsByUser: [String: Set<String>] = [:]

    /// The entry of an order, wherever it is.
    func entry(for id: String) -> Entry? { entries[id] }

    /// The id of the order holding a store transaction.
    func orderID(forTransaction transactionID: String) -> String? { idByTransaction[transactionID] }

    /// The id of the order whose payment carried this token.
    func orderID(forToken token: String) -> String? { idByToken[token] }

    /// The ids of the orders holding a transaction of the purchase
    /// `originalID`: the holder of its first transaction, then those of its later ones.
    func orderIDs(forPurchase originalID: String) -> [String] {
        purchases.orderIDs(forPurchase: originalID, firstHolder: idByTransaction[originalID]) {
            entries[$0]?.laterTransactionOriginalID != nil
        }
    }

    /// The id of the order stored under a file name, in either folder.
    func orderID(forFileName fileName: String) -> String? { idByFileName[fileName] }

    /// The ids of every order of one user: open, archived and compacted.
    func orderIDs(forUser userID: String) -> Set<String> { idsByUser[userID] ?? [] }

    /// The open orders of one user, oldest first.
    func openOrders(forUser userID: String) -> [Order] {
        (openIDsByUser[userID] ?? []).compactMap { openOrders[$0] }.sorted(by: Order.creationOrder)
    }

    /// Every archived order's id and entry (not the compacted ones).
    var archivedEntries: [(id: String, entry: Entry)] {
        archivedIDs.compactMap { id in entries[id].map { (id, $0) } }
    }

    /// The name a new file for `id` gets: its own name, or for a long id the
    /// first hashed name no other order uses.
    func freeFileName(for id: String) -> String {
        guard FileNameCoding.needsHash(id) else { return FileNameCoding.fileName(for: id) }
        var disambiguator = 0
        while true {
            let name = FileNameCoding.fileName(for: id, disambiguator: disambiguator)
            guard let holder = idByFileName[name], !holder.utf8.elementsEqual(id.utf8) else { return name }
            disambiguator += 1
        }
    }

    /// Records an order's current version, replacing what was known about its id.
    /// `fileName` is ignored for ``Place/ledger``.
    mutating func insert(_ order: Order, fileName: String, place: Place) {
        remove(id: order.id)
        let name = place == .ledger ? "" : fileName
        entries[order.id] = Entry(fileName: name, place: place, transactionID: order.transactionID,
                                  laterTransactionOriginalID: order.laterTransactionOriginalID,
                                  token: order.token, userID: order.userID, updatedAt: order.updatedAt)
        if place != .ledger { idByFileName[name] = order.id }
        if let transactionID = order.transactionID { idByTransaction[transactionID] = order.id }
        if let token = order.token { idByToken[token] = order.id }
        purchases.link(order.id, original: order.laterTransactionOriginalID)
        idsByUser[order.userID, default: []].insert(order.id)
        switch place {
        case .open:
            openOrders[order.id] = order
            openIDsByUser[order.userID, default: []].insert(order.id)
        case .archive:
            archivedIDs.insert(order.id)
        case .ledger:
            break
        }
    }

    /// Moves an open order's entry to the archive.
    mutating func markArchived(id: String) {
        guard var entry = entries[id], entry.place == .open else { return }
        dropOpen(id: id, userID: entry.userID)
        entry.place = .archive
        entries[id] = entry
        archivedIDs.insert(id)
    }

    /// Moves an archived order's entry to the ledger, once its compact record
    /// replaced its file. A move, not a save: an order saved after it keeps a
    /// transaction id or token the two share, as after ``markArchived(id:)``.
    mutating func markCompacted(id: String) {
        guard var entry = entries[id], entry.place == .archive else { return }
        unlinkFileName(of: id, entry)
        archivedIDs.remove(id)
        entry.fileName = ""
        entry.place = .ledger
        entries[id] = entry
    }

    /// Drops the link from the order's file to it, if it still points there
    /// (a ledger entry has no file).
    private mutating func unlinkFileName(of id: String, _ entry: Entry) {
        if entry.place != .ledger, idByFileName[entry.fileName] == id { idByFileName[entry.fileName] = nil }
    }

    /// Forgets an order. Returns what was known about it.
    @discardableResult
    mutating func remove(id: String) -> Entry? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        unlinkFileName(of: id, entry)
        // Only drop a link if it still points here: another order may have claimed it since.
        if let transactionID = entry.transactionID, idByTransaction[transactionID] == id {
            idByTransaction[transactionID] = nil
        }
        if let token = entry.token, idByToken[token] == id { idByToken[token] = nil }
        purchases.unlink(id, original: entry.laterTransactionOriginalID)
        idsByUser[entry.userID]?.remove(id)
        if idsByUser[entry.userID]?.isEmpty == true { idsByUser[entry.userID] = nil }
        switch entry.place {
        case .open: dropOpen(id: id, userID: entry.userID)
        case .archive: archivedIDs.remove(id)
        case .ledger: break
        }
        return entry
    }

    private mutating func dropOpen(id: String, userID: String) {
        openOrders[id] = nil
        openIDsByUser[userID]?.remove(id)
        if openIDsByUser[userID]?.isEmpty == true { openIDsByUser[userID] = nil }
    }
}
