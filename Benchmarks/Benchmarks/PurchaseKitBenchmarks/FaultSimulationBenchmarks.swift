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
