import Benchmark
import Foundation
@_spi(Testing) import PurchaseKit

/// Item 3 of the benchmark plan: launch recovery with 10,000 and 100,000
/// stored open orders, on each store.
///
/// What is measured: opening the store, making the engine, `start()` (load
/// every open order, attach to the store, start recovering each) and then
/// `waitUntilIdle()`. The stored orders rest in `deferred` (Ask to Buy waiting
/// for a parent): open, so they are loaded, but owing nothing, so recovery has
/// no further work and the fixture is the same for every iteration. This is
/// the cost a launch pays for holding that many open orders. The fixture is
/// built once, outside the measured region; after the first iteration the
/// files are in the page cache, so this is a warm launch.
///
/// A second benchmark measures recovery that does work: 10,000 orders that
/// owe a delivery, in memory, each verified, delivered, finished and archived.
enum RecoveryBenchmarks {
    static func register() {
        for count in [10_000, 100_000] {
            for kind in [StoreKind.journal, .file, .jsonArray, .grdb, .inMemory] {
                registerLoad(kind, count: count)
            }
        }
        registerOwedDeliveries(count: 10_000)
    }

    static func registerLoad(_ kind: StoreKind, count: Int) {
        let fixture = Shared<StoreFixture>()
        Benchmark(
            "Launch recovery, \(grouped(count)) open orders: \(kind.rawValue)",
            configuration: .init(
                metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
                warmupIterations: 1, maxDuration: .seconds(count > 10_000 ? 10 : 4), maxIterations: count > 10_000 ? 3 : 20,
                setup: { fixture.value = try await StoreFixture(kind: kind, count: count) },
                teardown: { fixture.value.remove(); fixture.clear() })
        ) { benchmark in
            do {
                // The in-memory store is filled before the clock starts: it has nothing to load.
                let preloaded: (any OrderStore)? = kind == .inMemory ? try fixture.value.open() : nil
                benchmark.startMeasurement()
                let engine = try Fixtures.engine(store: try preloaded ?? fixture.value.open(), maximumConcurrentPurchases: 8)
                let report = try await engine.start()
                await engine.waitUntilIdle()
                benchmark.stopMeasurement()
                // The fixture must come out as it went in: an order recovery
                // ended (an expired approval, say) changes what the next
                // iteration measures.
                let stillOpen = await engine.openOrders().count
                await engine.shutdown()
                guard report.orders.count == count else {
                    throw BenchmarkFailure("Recovery loaded \(report.orders.count) of \(count) orders.")
                }
                guard stillOpen == count else {
                    throw BenchmarkFailure("Recovery ended \(count - stillOpen) of the \(count) resting orders; they must stay open.")
                }
            } catch {
                benchmark.error("\(error)")
            }
        }
    }

    static func registerOwedDeliveries(count: Int) {
        let orders = Shared<[Order]>()
        Benchmark(
            "Launch recovery, \(grouped(count)) owed deliveries delivered: InMemoryOrderStore",
            configuration: .init(
                metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
                warmupIterations: 1, maxDuration: .seconds(6), maxIterations: 20,
                setup: { orders.value = (0..<count).map(Fixtures.owedOrder) },
                teardown: { orders.clear() })
        ) { benchmark in
            do {
                let store = InMemoryOrderStore(orders: orders.value)
                let engine = try Fixtures.engine(store: store, maximumConcurrentPurchases: 8)
                benchmark.startMeasurement()
                try await engine.start()
                await engine.waitUntilIdle()
                benchmark.stopMeasurement()
                let left = await store.loadOpenOrders().orders.count
                guard left == 0 else { throw BenchmarkFailure("\(left) orders were still open after recovery.") }
            } catch {
                benchmark.error("\(error)")
            }
        }
    }
}
