import Benchmark
import Foundation
@_spi(Testing) import PurchaseKit

/// Item 7 of the benchmark plan: what an app reads, with 1,000 and with
/// 100,000 orders stored. `customerInfo(user:)` answers from the user's
/// orders, spends and renewal facts alone, so its cost must follow the
/// user's own orders, not the store's size.
///
/// The fixture is the launch-recovery fixture (resting orders of a thousand
/// other users) plus one reader who bought ``Fixtures/coins`` twenty times
/// through the engine, in the set-up: twenty orders delivered, finished and
/// archived, a balance of 20. Each iteration reads that user's customer
/// info from a started engine.
enum ReadBenchmarks {
    static let reader = "reader"
    static let readerPurchases = 20

    static func register() {
        for count in [1_000, 100_000] {
            for kind in [StoreKind.journal, .file, .inMemory] {
                register(kind, count: count)
            }
        }
    }

    static func register(_ kind: StoreKind, count: Int) {
        let fixture = Shared<StoreFixture>()
        let engine = Shared<PurchaseEngine>()
        Benchmark(
            "Customer info of a user with \(readerPurchases) orders, \(grouped(count)) orders stored: \(kind.rawValue)",
            configuration: .init(
                metrics: [.throughput, .wallClock, .mallocCountTotal],
                warmupIterations: 10, maxDuration: .seconds(3), maxIterations: 5_000,
                setup: {
                    fixture.value = try await StoreFixture(kind: kind, count: count)
                    engine.value = try Fixtures.engine(store: try fixture.value.open(), maximumConcurrentPurchases: 8)
                    _ = try await engine.value.start()
                    for _ in 0..<readerPurchases {
                        let result = try await engine.value.purchase(productID: Fixtures.coins.id, user: reader)
                        guard case .success = result else { throw BenchmarkFailure("A reader's purchase did not succeed: \(result)") }
                    }
                    await engine.value.waitUntilIdle()
                },
                teardown: {
                    await engine.value.shutdown()
                    fixture.value.remove()
                    fixture.clear()
                    engine.clear()
                })
        ) { benchmark in
            do {
                let info = try await engine.value.customerInfo(user: reader)
                guard info.consumableBalances[Fixtures.coins.id] == readerPurchases else {
                    throw BenchmarkFailure("The reader's balance is \(info.consumableBalances), not \(readerPurchases) coins.")
                }
            } catch {
                benchmark.error("\(error)")
            }
        }
    }
}
