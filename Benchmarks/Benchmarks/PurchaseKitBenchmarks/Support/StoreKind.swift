import Foundation
import PurchaseKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The order stores compared: PurchaseKit's three and the two baselines.
enum StoreKind: String, CaseIterable, Sendable {
    case inMemory = "InMemoryOrderStore"
    case journal = "JournalOrderStore"
    case file = "FileOrderStore"
    case jsonArray = "JSON array (baseline)"
    case grdb = "SQLite via GRDB (baseline)"

    /// A new, empty store of this kind in `scratch`.
    func makeStore(in scratch: ScratchDirectory) throws -> any OrderStore {
        switch self {
        case .inMemory: return InMemoryOrderStore()
        case .journal: return try JournalOrderStore(directory: scratch.file("orders-store"))
        case .file: return try FileOrderStore(directory: scratch.file("orders-store"))
        case .jsonArray: return JSONArrayOrderStore(directory: scratch.url)
        case .grdb: return try GRDBOrderStore(path: scratch.file("orders.sqlite").path)
        }
    }
}

/// A store of `kind` holding `count` resting open orders (`Fixtures.restingOrder`),
/// built fast: the fixture is set up outside the measured region, and its
/// files are written without a flush per file.
struct StoreFixture: Sendable {
    let kind: StoreKind
    let count: Int
    let scratch: ScratchDirectory

    init(kind: StoreKind, count: Int) async throws {
        self.kind = kind
        self.count = count
        scratch = try ScratchDirectory("\(kind)-\(count)")
        let orders = (0..<count).map(Fixtures.restingOrder)
        switch kind {
        case .inMemory:
            break
        case .journal:
            // A folder in FileOrderStore's layout, which the journal store imports into its
            // snapshot the first time it opens it: the import is part of the set-up.
            try Self.writeFileStoreFolder(orders, at: scratch.file("orders-store"))
            let store = try JournalOrderStore(directory: scratch.file("orders-store"))
            _ = try await store.loadOpenOrders()
            await store.close()
        case .file:
            try Self.writeFileStoreFolder(orders, at: scratch.file("orders-store"))
        case .jsonArray:
            try await JSONArrayOrderStore(directory: scratch.url).seed(orders)
        case .grdb:
            try GRDBOrderStore(path: scratch.file("orders.sqlite").path).seed(orders)
        }
        sync()
        try await verify()
    }

    /// Creates a FileOrderStore's folders the store's own way, then drops one file per
    /// order in the open-orders folder. Ids like `fixture-12` are kept as they are in the
    /// file name (`order-fixture-12.json`); `verify()` checks that the store reads every
    /// one back, so a change of layout fails loudly.
    static func writeFileStoreFolder(_ orders: [Order], at url: URL) throws {
        _ = try FileOrderStore(directory: url)
        let folder = url.appendingPathComponent("orders").path
        for order in orders {
            try DurableFile.writeQuickly(try OrderCoding.encode(order), to: folder + "/order-\(order.id).json")
        }
    }

    /// Opens the fixture as a new store would be opened at launch.
    func open() throws -> any OrderStore {
        switch kind {
        case .inMemory: return InMemoryOrderStore(orders: (0..<count).map(Fixtures.restingOrder))
        default: return try kind.makeStore(in: scratch)
        }
    }

    /// Fails unless a fresh store loads exactly the fixture's orders.
    func verify() async throws {
        let report = try await open().loadOpenOrders()
        guard report.orders.count == count, report.problems.isEmpty else {
            throw BenchmarkFailure("The \(kind.rawValue) fixture loaded \(report.orders.count) of \(count) orders "
                + "with \(report.problems.count) problems.")
        }
    }

    func remove() { scratch.remove() }
}
