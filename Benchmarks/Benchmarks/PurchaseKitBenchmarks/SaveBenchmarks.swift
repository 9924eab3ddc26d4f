import Benchmark
import Foundation
@_spi(Testing) import PurchaseKit

/// Item 4 of the benchmark plan: one save with 1,000 and with 100,000 orders
/// stored. `FileOrderStore` writes one file per order and keeps an index in
/// memory, so the two must cost the same; the JSON-array baseline rewrites
/// everything and must not; SQLite updates one row (and its B-tree pages).
///
/// Each iteration saves one existing order again with a new `updatedAt`
/// (walking through the stored orders), so the number of orders stays fixed.
/// The store is opened and loaded in setup, outside the measured region.
enum SaveBenchmarks {
    static func register() {
        for count in [1_000, 100_000] {
            for kind in [StoreKind.journal, .file, .jsonArray, .grdb] {
                register(kind, count: count)
            }
        }
    }

    static func register(_ kind: StoreKind, count: Int) {
        let fixture = Shared<StoreFixture>()
        let store = Shared<any OrderStore>()
        let slowBaseline = kind == .jsonArray && count > 1_000
        Benchmark(
            "One save, \(grouped(count)) orders stored: \(kind.rawValue)",
            configuration: .init(
                metrics: [.throughput, .wallClock, .mallocCountTotal],
                warmupIterations: slowBaseline ? 1 : 10, maxDuration: .seconds(slowBaseline ? 10 : 3),
                maxIterations: slowBaseline ? 3 : 5_000,
                setup: {
                    fixture.value = try await StoreFixture(kind: kind, count: count)
                    store.value = try fixture.value.open()
                    _ = try await store.value.loadOpenOrders()
                },
                teardown: { fixture.value.remove(); fixture.clear(); store.clear() })
        ) { benchmark in
            do {
                let order = Fixtures.restingOrder(benchmark.currentIteration % count).fixture(updatedAt: Date())
                try await store.value.save(order)
            } catch {
                benchmark.error("\(error)")
            }
        }
    }
}
