import Foundation

/// What ``FileOrderStore`` knows about its files without touching the disk:
/// where each order lives, which order holds each transaction, and each user's
/// open orders. Built once by the load; after that every save and lookup costs
/// the same however many orders are stored, because nothing scans a directory.
///
/// Open orders are kept whole (the working set is small); archived ones only
/// as a summary, and are read from their file on demand.
struct FileOrderIndex {
    /// Which folder an order's file is in.
    enum Place: String, Sendable {
        case open = "orders"
        case archive
    }

    /// Where one order lives and what lookups need to know about it.
    struct Entry: Equatable {
        var fileName: String
        var place: Place
        var transactionID: String?
        var token: String?
        var userID: String
        var updatedAt: Date
    }

    private(set) var entries: [String: Entry] = [:]
    private(set) var openOrders: [String: Order] = [:]
    private var idByFileName: [String: String] = [:]
    private var idByTransaction: [String: String] = [:]
    private var idByToken: [String: String] = [:]
    private var openIDsByUser: [String: Set<String>] = [:]

    /// The entry of an order, open or archived.
    func entry(for id: String) -> Entry? { entries[id] }

    /// The id of the order holding a store transaction.
    func orderID(forTransaction transactionID: String) -> String? { idByTransaction[transactionID] }

    /// The id of the order whose payment carried this order token.
    func orderID(forToken token: String) -> String? { idByToken[token] }

    /// The id of the order stored under a file name, in either folder.
    func orderID(forFileName fileName: String) -> String? { idByFileName[fileName] }

    /// The open orders of one user, oldest first.
    func openOrders(forUser userID: String) -> [Order] {
        (openIDsByUser[userID] ?? []).compactMap { openOrders[$0] }.sorted(by: Self.creationOrder)
    }

    /// Every archived order's id and entry.
    var archivedEntries: [(id: String, entry: Entry)] {
        entries.compactMap { $0.value.place == .archive ? ($0.key, $0.value) : nil }
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

    /// Records an order in a folder, replacing what was known about its id.
    mutating func insert(_ order: Order, fileName: String, place: Place) {
        remove(id: order.id)
        let entry = Entry(fileName: fileName, place: place, transactionID: order.transactionID,
                          token: order.token, userID: order.userID, updatedAt: order.updatedAt)
        entries[order.id] = entry
        idByFileName[fileName] = order.id
        if let transactionID = order.transactionID { idByTransaction[transactionID] = order.id }
        if let token = order.token { idByToken[token] = order.id }
        if place == .open {
            openOrders[order.id] = order
            openIDsByUser[order.userID, default: []].insert(order.id)
        }
    }

    /// Moves an open order's entry to the archive.
    mutating func markArchived(id: String) {
        guard var entry = entries[id], entry.place == .open else { return }
        dropOpen(id: id, userID: entry.userID)
        entry.place = .archive
        entries[id] = entry
    }

    /// Forgets an order. Returns what was known about it.
    @discardableResult
    mutating func remove(id: String) -> Entry? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        if idByFileName[entry.fileName] == id { idByFileName[entry.fileName] = nil }
        // Only drop the transaction's link if it still points here: another order may have claimed it since.
        if let transactionID = entry.transactionID, idByTransaction[transactionID] == id {
            idByTransaction[transactionID] = nil
        }
        if let token = entry.token, idByToken[token] == id { idByToken[token] = nil }
        if entry.place == .open { dropOpen(id: id, userID: entry.userID) }
        return entry
    }

    private mutating func dropOpen(id: String, userID: String) {
        openOrders[id] = nil
        openIDsByUser[userID]?.remove(id)
        if openIDsByUser[userID]?.isEmpty == true { openIDsByUser[userID] = nil }
    }

    /// Oldest first; the id breaks ties so the order is stable.
    static func creationOrder(_ lhs: Order, _ rhs: Order) -> Bool {
        (lhs.createdAt, lhs.id) < (rhs.createdAt, rhs.id)
    }
}
