import Benchmark
import Foundation
import PurchaseKit
import PurchaseRigs

/// What an in-memory purchase, 64 in flight, is made of, next to
/// "Purchase, 64 in flight: InMemoryOrderStore" in the same run:
///
/// - the same purchases with ``MinimalPaymentQueue`` in place of the
///   simulated store: the engine alone; the difference is the simulator's;
/// - ``SkeletonEngine``: the tasks and hand-overs a purchase makes, with no
///   work in them: the floor of the engine's design.
///
/// The goal of 50,000 purchases per CPU-second is 20 μs a purchase; these
/// say how much of today's purchase is the engine, the simulated store, and
/// the concurrency the design needs.
enum BreakdownBenchmarks {
    static let cpuPerPurchase = BenchmarkMetric.custom("CPU per purchase (ns)", polarity: .prefersSmaller, useScalingFactor: false)
    /// What both record, besides the round's wall time and allocations.
    static let metrics: [BenchmarkMetric] = [.wallClock, .mallocCountTotal, PurchaseBenchmarks.purchasesPerCPUSecond, cpuPerPurchase]

    static func register() {
        registerEngineAlone()
        registerSkeleton()
    }

    static func registerEngineAlone() {
        let rig = Shared<PurchaseRig>()
        let round = PurchaseBenchmarks.purchasesPerRound(.inMemory)
        let inFlight = PurchaseBenchmarks.inFlight
        Benchmark(
            "Purchase, \(inFlight) in flight (\(round) per iteration): InMemoryOrderStore, minimal payment queue in place of the simulator",
            configuration: .init(
                metrics: metrics,
                warmupIterations: 1, maxDuration: .seconds(4), maxIterations: 100,
                setup: {
                    rig.value = try await PurchaseRig(kind: .inMemory, maximumConcurrentPurchases: inFlight,
                                                      queue: MinimalPaymentQueue(products: [Fixtures.coins]))
                },
                teardown: { rig.value.close(); rig.clear() })
        ) { benchmark in
            do {
                let cpuStart = ProcessCPUTime.nanoseconds()
                _ = try await rig.value.purchaseConcurrently(total: round, inFlight: inFlight)
                record(cpu: ProcessCPUTime.nanoseconds() - cpuStart, purchases: round, in: benchmark)
            } catch {
                benchmark.error("\(error)")
            }
        }
    }

    static func registerSkeleton() {
        let round = PurchaseBenchmarks.purchasesPerRound(.inMemory)
        let inFlight = PurchaseBenchmarks.inFlight
        Benchmark(
            "Concurrency skeleton of a purchase, \(inFlight) in flight (\(round) per iteration): tasks and hand-overs, no work",
            configuration: .init(
                metrics: metrics,
                warmupIterations: 1, maxDuration: .seconds(4), maxIterations: 100)
        ) { benchmark in
            let engine = SkeletonEngine(store: SkeletonStore())
            let tickets = Tickets(round)
            let cpuStart = ProcessCPUTime.nanoseconds()
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<inFlight {
                    group.addTask {
                        // Ids unique across workers: the engine files waiting calls by id.
                        var id = worker * round
                        while tickets.take() {
                            id += 1
                            await engine.purchase(id)
                        }
                    }
                }
            }
            record(cpu: ProcessCPUTime.nanoseconds() - cpuStart, purchases: round, in: benchmark)
        }
    }

    private static func record(cpu nanoseconds: UInt64, purchases: Int, in benchmark: Benchmark) {
        benchmark.measurement(PurchaseBenchmarks.purchasesPerCPUSecond, ProcessCPUTime.perCPUSecond(purchases, nanoseconds: nanoseconds))
        benchmark.measurement(cpuPerPurchase, Int(nanoseconds) / purchases)
    }
}
