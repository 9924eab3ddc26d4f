import Benchmark
import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseRigs

/// Items 1, 2 and 5 of the benchmark plan: end-to-end simulated purchases,
/// one at a time and 64 in flight, on each order store.
///
/// A purchase is the whole lifecycle: the order is made and saved, the payment
/// goes to the simulated store (no latency), the transaction is saved, the
/// verifier (always `.delivered`, no network) is asked, the delivery is saved,
/// the transaction is finished, the order is completed and archived. Every
/// store starts empty; its archive grows by one order per purchase.
enum PurchaseBenchmarks {
    static let inFlight = 64

    static let latency = BenchmarkMetric.custom("latency per purchase (μs)", polarity: .prefersSmaller, useScalingFactor: false)
    static let purchasesPerSecond = BenchmarkMetric.custom("purchases per second", polarity: .prefersLarger, useScalingFactor: false)
    static let purchasesPerCPUSecond = BenchmarkMetric.custom("purchases per CPU-second", polarity: .prefersLarger, useScalingFactor: false)
    static let cpuPerPurchase = BenchmarkMetric.custom("CPU per purchase (μs)", polarity: .prefersSmaller, useScalingFactor: false)
    static let systemCPUShare = BenchmarkMetric.custom("system CPU (% of the round's CPU)", polarity: .prefersSmaller, useScalingFactor: false)
    static let switchesPer100 = BenchmarkMetric.custom("thread switches per 100 purchases", polarity: .prefersSmaller, useScalingFactor: false)

    static func register() {
        for kind in StoreKind.allCases {
            registerOneAtATime(kind)
            registerInFlight(kind)
        }
        registerAmongOpenOrders(count: 10_000)
    }

    /// One purchase per iteration, awaited, while `count` other orders rest
    /// open (Ask to Buy waiting, `Fixtures.restingOrder`): what a payment
    /// costs when the engine holds many open orders. Matching the store's
    /// update to its order must not look at every one of them.
    static func registerAmongOpenOrders(count: Int) {
        registerOneAtATime("Purchase, one at a time, \(grouped(count)) other orders open: InMemoryOrderStore") {
            let store = InMemoryOrderStore(orders: (0..<count).map(Fixtures.restingOrder))
            return try await PurchaseRig(kind: .inMemory, maximumConcurrentPurchases: 1, wrap: { _ in store })
        }
    }

    /// One purchase per iteration, awaited: wall clock percentiles are the latency of one purchase.
    static func registerOneAtATime(_ kind: StoreKind) {
        registerOneAtATime("Purchase, one at a time: \(kind.rawValue)") {
            try await PurchaseRig(kind: kind, maximumConcurrentPurchases: 1)
        }
    }

    /// One purchase per iteration on the rig `makeRig` sets up, with the CPU
    /// time it took and how many times a thread of the process went to sleep
    /// meanwhile (×100, to share the 64-in-flight metric's unit).
    private static func registerOneAtATime(_ name: String, makeRig: @escaping @Sendable () async throws -> PurchaseRig) {
        let rig = Shared<PurchaseRig>()
        Benchmark(
            name,
            configuration: .init(
                metrics: [.throughput, .wallClock, .mallocCountTotal, cpuPerPurchase, switchesPer100],
                warmupIterations: 10, maxDuration: .seconds(3), maxIterations: 5_000,
                setup: { rig.value = try await makeRig() },
                teardown: { rig.value.close(); rig.clear() })
        ) { benchmark in
            do {
                let cpuStart = ProcessCPUTime.nanoseconds()
                let switchesStart = KernelUsage.now().voluntarySwitches
                try await rig.value.purchase(user: "user-1")
                benchmark.measurement(cpuPerPurchase, Int((ProcessCPUTime.nanoseconds() - cpuStart) / 1_000))
                benchmark.measurement(switchesPer100, (KernelUsage.now().voluntarySwitches - switchesStart) * 100)
            } catch {
                benchmark.error("\(error)")
            }
        }
    }

    /// How many purchases one iteration of the 64-in-flight benchmark makes:
    /// enough to keep 64 in flight most of the time, few enough that the slow
    /// baseline (whose every save rewrites all the orders it holds) finishes.
    static func purchasesPerRound(_ kind: StoreKind) -> Int {
        switch kind {
        case .inMemory, .journal: return 1_024
        case .file, .grdb: return 256
        case .jsonArray: return 64
        }
    }

    /// A round of purchases per iteration, 64 in flight (64 users, one payment
    /// in flight each; `maximumConcurrentPurchases` = 64). Throughput and the
    /// latency of each purchase are custom metrics, with the share of the
    /// round's CPU spent in the kernel and the threads' voluntary context
    /// switches (``KernelUsage``); wall clock and allocations are per round
    /// (divide by ``purchasesPerRound(_:)``).
    static func registerInFlight(_ kind: StoreKind) {
        let rig = Shared<PurchaseRig>()
        let round = purchasesPerRound(kind)
        Benchmark(
            "Purchase, \(inFlight) in flight (\(round) per iteration): \(kind.rawValue)",
            configuration: .init(
                metrics: [.wallClock, .mallocCountTotal, purchasesPerSecond, purchasesPerCPUSecond, latency, systemCPUShare,
                          switchesPer100],
                warmupIterations: 1, maxDuration: .seconds(4), maxIterations: kind == .jsonArray ? 3 : 100,
                setup: { rig.value = try await PurchaseRig(kind: kind, maximumConcurrentPurchases: inFlight) },
                teardown: { rig.value.close(); rig.clear() })
        ) { benchmark in
            do {
                let start = ContinuousClock.now
                let cpuStart = ProcessCPUTime.nanoseconds()
                let kernelStart = KernelUsage.now()
                let latencies = try await rig.value.purchaseConcurrently(total: round, inFlight: inFlight)
                let cpu = ProcessCPUTime.nanoseconds() - cpuStart
                let kernel = KernelUsage.now() - kernelStart
                let elapsed = DurabilityBenchmarks.microseconds(start.duration(to: .now))
                benchmark.measurement(purchasesPerSecond, round * 1_000_000 / max(elapsed, 1))
                benchmark.measurement(purchasesPerCPUSecond, ProcessCPUTime.perCPUSecond(round, nanoseconds: cpu))
                benchmark.measurement(systemCPUShare, kernel.systemMicroseconds * 100_000 / max(Int(cpu), 1))
                benchmark.measurement(switchesPer100, kernel.voluntarySwitches * 100 / round)
                for microseconds in latencies { benchmark.measurement(latency, microseconds) }
            } catch {
                benchmark.error("\(error)")
            }
        }
    }
}

/// An engine on the simulated store, over one order store.
struct PurchaseRig: Sendable {
    let engine: PurchaseEngine
    let scratch: ScratchDirectory

    init(kind: StoreKind, maximumConcurrentPurchases: Int, wrap: (any OrderStore) -> any OrderStore = { $0 },
         queue: (any PaymentQueue)? = nil) async throws {
        scratch = try ScratchDirectory("purchase-\(kind)")
        engine = try Fixtures.engine(store: wrap(try kind.makeStore(in: scratch)),
                                     maximumConcurrentPurchases: maximumConcurrentPurchases, queue: queue)
        try await engine.start()
    }

    /// One purchase, until the engine has nothing left to do (the order archived).
    func purchase(user: String) async throws {
        let result = try await engine.purchase(productID: Fixtures.coins.id, user: user)
        guard case .success = result else { throw BenchmarkFailure("A purchase did not succeed: \(result)") }
        await engine.waitUntilIdle()
    }

    /// `total` purchases by `inFlight` users at once; returns each purchase's latency in microseconds.
    func purchaseConcurrently(total: Int, inFlight: Int) async throws -> [Int] {
        try await PurchaseRounds.purchaseConcurrently(on: engine, total: total, inFlight: inFlight)
    }

    func close() { scratch.remove() }
}
