import Foundation
import PurchaseKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The order stores compared: PurchaseKit's two and the two baselines.
enum StoreKind: String, CaseIterable, Sendable {
    case inMemory = "InMemoryOrderStore"
    case file = "FileOrderStore"
    case jsonArray = "JSON array (baseline)"
    case grdb = "SQLite via GRDB (baseline)"

    /// A new, empty store of this kind in `scratch`.
    func makeStore(in scratch: ScratchDirectory) throws -> any OrderStore {
        switch self {
        case .inMemory: return InMemoryOrderStore()
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
        case .file:
            // Create the store's folders the store's own way, then drop one file per
            // order in the open-orders folder. Ids like `fixture-12` are kept as they are
            // in the file name (`order-fixture-12.json`); `verify()` checks that the
            // store reads every one back, so a change of layout fails loudly.
            _ = try FileOrderStore(directory: scratch.file("orders-store"))
            let folder = scratch.file("orders-store").appendingPathComponent("orders").path
            for order in orders {
                try DurableFile.writeQuickly(try OrderCoding.encode(order), to: folder + "/order-\(order.id).json")
            }
        case .jsonArray:
            try await JSONArrayOrderStore(directory: scratch.url).seed(orders)
        case .grdb:
            try GRDBOrderStore(path: scratch.file("orders.sqlite").path).seed(orders)
        }
        sync()
        try await verify()
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
