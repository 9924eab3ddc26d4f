import Benchmark
import Foundation
import PurchaseKitSimulator

/// Item 6 of the benchmark plan: the fault simulation, in seeds per second.
enum FaultSimulationBenchmarks {
    static let maximumPurchases = 20

    static func register() {
        let nextSeed = Seeds()
        Benchmark(
            "Fault simulation: one seed, up to \(maximumPurchases) purchases",
            configuration: .init(
                metrics: [.throughput, .wallClock, .mallocCountTotal],
                warmupIterations: 3, maxDuration: .seconds(5), maxIterations: 10_000)
        ) { _ in
            _ = await FaultSimulation.runOne(seed: nextSeed.next(), maximumPurchases: maximumPurchases)
        }
        // What `chaos` does: runs side by side, one per core. Seeds per
        // second are 100 times this benchmark's throughput.
        let nextBatch = Seeds()
        Benchmark(
            "Fault simulation: 100 seeds, one run per core",
            configuration: .init(
                metrics: [.throughput, .wallClock],
                warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 1_000)
        ) { _ in
            let options = FaultSimulation.Options(runs: 100, firstSeed: 1_000_000 + nextBatch.next() * 100,
                                                  maximumPurchases: maximumPurchases)
            _ = await FaultSimulation.run(options)
        }
    }
}

/// Seeds 1, 2, 3, ... so that every iteration runs a different scenario.
///
/// `@unchecked Sendable` is safe: the counter is only touched under the lock.
final class Seeds: @unchecked Sendable {
    private let lock = NSLock()
    private var last: UInt64 = 0

    func next() -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        last += 1
        return last
    }
}
