import Foundation
import PurchaseKit

/// Baseline: the store many apps write first. Every order, open and archived,
/// lives in one JSON array in one file (a preferences blob), and every save
/// rewrites the whole array.
///
/// It is made as durable as ``FileOrderStore`` (temporary file, `fsync`,
/// rename, directory `fsync`) so that the comparison is about the data layout,
/// not about skipping the flush. Its cost grows with the number of orders
/// stored: that is what the baseline is here to show.
actor JSONArrayOrderStore: OrderStore {
    private struct Entry: Codable {
        var archived: Bool
        var order: Order
    }

    private let directory: String
    private let fileName = "orders.json"
    private var entries: [String: Entry] = [:]
    private var sequence: [String] = []
    private var isLoaded = false

    init(directory: URL) {
        self.directory = directory.path
    }

    /// Writes `orders` as the store's content in one go (fixtures).
    func seed(_ orders: [Order]) throws {
        entries = [:]
        sequence = []
        for order in orders {
            entries[order.id] = Entry(archived: false, order: order)
            sequence.append(order.id)
        }
        isLoaded = true
        try rewrite()
    }

    private func loadIfNeeded() throws {
        guard !isLoaded else { return }
        let url = URL(fileURLWithPath: directory + "/" + fileName)
        if FileManager.default.fileExists(atPath: url.path) {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .deferredToDate
            let list = try decoder.decode([Entry].self, from: Data(contentsOf: url))
            for entry in list {
                if entries[entry.order.id] == nil { sequence.append(entry.order.id) }
                entries[entry.order.id] = entry
            }
        }
        isLoaded = true
    }

    private func rewrite() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .deferredToDate
        let data = try encoder.encode(sequence.compactMap { entries[$0] })
        try DurableFile.replace(fileName, in: directory, with: data)
    }

    func save(_ order: Order) throws {
        try loadIfNeeded()
        if entries[order.id] == nil { sequence.append(order.id) }
        entries[order.id] = Entry(archived: false, order: order)
        try rewrite()
    }

    func loadOpenOrders() throws -> OrderLoadReport {
        try loadIfNeeded()
        let open = sequence.compactMap { entries[$0] }.filter { !$0.archived }.map(\.order)
        return OrderLoadReport(orders: open.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) })
    }

    func openOrders(forUser userID: String) throws -> [Order] {
        try loadIfNeeded()
        return entries.values.filter { !$0.archived && $0.order.userID == userID }.map(\.order)
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    func orders(forUser userID: String) throws -> [Order] {
        try loadIfNeeded()
        return entries.values.filter { $0.order.userID == userID }.map(\.order)
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    func order(id: String) throws -> Order? {
        try loadIfNeeded()
        return entries[id]?.order
    }

    func order(transactionID: String) throws -> Order? {
        try loadIfNeeded()
        // A linear scan, as such stores do: there is no index beside the blob.
        return entries.values.first { $0.order.transactionID == transactionID }?.order
    }

    func order(token: String) throws -> Order? {
        try loadIfNeeded()
        return entries.values.first { $0.order.token == token }?.order
    }

    func archive(orderID: String) throws {
        try loadIfNeeded()
        guard var entry = entries[orderID], !entry.archived else {
            throw PurchaseKitError(.orderNotFound, "There is no open order '\(orderID)' to archive.",
                                   advice: "Reload the open orders.", orderID: orderID)
        }
        entry.archived = true
        entries[orderID] = entry
        try rewrite()
    }

    func remove(orderID: String) throws {
        try loadIfNeeded()
        guard entries.removeValue(forKey: orderID) != nil else { return }
        sequence.removeAll { $0 == orderID }
        try rewrite()
    }
}
