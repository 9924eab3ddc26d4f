import Foundation
import GRDB
import PurchaseKit

/// Baseline: SQLite through GRDB, the way a careful app would store orders.
/// One row per order, keyed by its id, with an index on the transaction id
/// (and ones on the token and the user); the order itself is the JSON document `OrderCoding`
/// writes, in a column. WAL journal, `synchronous = FULL`, so that a
/// committed save survives a power loss, as a ``FileOrderStore`` save does.
final class GRDBOrderStore: OrderStore {
    private let pool: DatabasePool

    init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS orders (
                    id TEXT PRIMARY KEY NOT NULL,
                    transactionID TEXT,
                    token TEXT,
                    userID TEXT NOT NULL,
                    createdAt DOUBLE NOT NULL,
                    archived INTEGER NOT NULL DEFAULT 0,
                    document BLOB NOT NULL
                );
                CREATE INDEX IF NOT EXISTS orders_transaction ON orders(transactionID);
                CREATE INDEX IF NOT EXISTS orders_token ON orders(token);
                CREATE INDEX IF NOT EXISTS orders_user ON orders(userID);
                """)
        }
    }

    /// The journal mode and synchronous level in force, to check the setup.
    func settings() throws -> (journalMode: String, synchronous: Int) {
        try pool.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "",
             try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1)
        }
    }

    /// Inserts `orders` in one transaction (fixtures).
    func seed(_ orders: [Order]) throws {
        try pool.write { db in
            for order in orders { try Self.upsert(order, in: db) }
        }
    }

    private static func upsert(_ order: Order, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO orders (id, transactionID, token, userID, createdAt, archived, document) VALUES (?, ?, ?, ?, ?, 0, ?)
            ON CONFLICT(id) DO UPDATE SET transactionID = excluded.transactionID, token = excluded.token,
                userID = excluded.userID, createdAt = excluded.createdAt, archived = 0, document = excluded.document
            """, arguments: [order.id, order.transactionID, order.token, order.userID,
                             order.createdAt.timeIntervalSinceReferenceDate, try OrderCoding.encode(order)])
    }

    private static func decode(_ rows: [Data]) throws -> [Order] {
        try rows.map { try OrderCoding.decode($0) }
    }

    func save(_ order: Order) async throws {
        try await pool.write { db in try Self.upsert(order, in: db) }
    }

    func loadOpenOrders() async throws -> OrderLoadReport {
        let rows = try await pool.read { db in
            try Data.fetchAll(db, sql: "SELECT document FROM orders WHERE archived = 0 ORDER BY createdAt, id")
        }
        return OrderLoadReport(orders: try Self.decode(rows))
    }

    func openOrders(forUser userID: String) async throws -> [Order] {
        let rows = try await pool.read { db in
            try Data.fetchAll(db, sql: "SELECT document FROM orders WHERE userID = ? AND archived = 0 ORDER BY createdAt, id",
                              arguments: [userID])
        }
        return try Self.decode(rows)
    }

    func orders(forUser userID: String) async throws -> [Order] {
        let rows = try await pool.read { db in
            try Data.fetchAll(db, sql: "SELECT document FROM orders WHERE userID = ? ORDER BY createdAt, id", arguments: [userID])
        }
        return try Self.decode(rows)
    }

    func order(id: String) async throws -> Order? {
        let row = try await pool.read { db in
            try Data.fetchOne(db, sql: "SELECT document FROM orders WHERE id = ?", arguments: [id])
        }
        return try row.map { try OrderCoding.decode($0) }
    }

    func order(transactionID: String) async throws -> Order? {
        let row = try await pool.read { db in
            try Data.fetchOne(db, sql: "SELECT document FROM orders WHERE transactionID = ? ORDER BY archived LIMIT 1",
                              arguments: [transactionID])
        }
        return try row.map { try OrderCoding.decode($0) }
    }

    func order(token: String) async throws -> Order? {
        let row = try await pool.read { db in
            try Data.fetchOne(db, sql: "SELECT document FROM orders WHERE token = ? ORDER BY archived LIMIT 1", arguments: [token])
        }
        return try row.map { try OrderCoding.decode($0) }
    }

    func archive(orderID: String) async throws {
        let changed = try await pool.write { db in
            try db.execute(sql: "UPDATE orders SET archived = 1 WHERE id = ? AND archived = 0", arguments: [orderID])
            return db.changesCount
        }
        guard changed == 1 else {
            throw PurchaseKitError(.orderNotFound, "There is no open order '\(orderID)' to archive.",
                                   advice: "Reload the open orders.", orderID: orderID)
        }
    }

    func remove(orderID: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM orders WHERE id = ?", arguments: [orderID])
        }
    }
}
