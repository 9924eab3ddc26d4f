import Benchmark
import Foundation
import PurchaseKit

/// The floors the journal store is measured against, on the same disk and in
/// the same run: one record appended to a log and made durable with
/// `fdatasync`, and 64 records per `fdatasync` (what group commit can reach).
/// Then two ratios taken side by side in the same iterations: a durable
/// purchase on `JournalOrderStore` against one log append + `fdatasync`, and,
/// with 64 purchases in flight, the time per purchase against one durable
/// file write.
enum FloorBenchmarks {
    static let floorTime = BenchmarkMetric.custom("one log append + fdatasync (μs)", polarity: .prefersSmaller, useScalingFactor: false)
    static let perRecord = BenchmarkMetric.custom("per record (ns)", polarity: .prefersSmaller, useScalingFactor: false)
    static let purchaseTime = BenchmarkMetric.custom("one durable purchase (μs)", polarity: .prefersSmaller, useScalingFactor: false)
    static let ratio = BenchmarkMetric.custom("purchase ÷ log append + fdatasync (×100)", polarity: .prefersSmaller, useScalingFactor: false)
    static let writeTime = BenchmarkMetric.custom("one durable write (μs)", polarity: .prefersSmaller, useScalingFactor: false)
    static let perPurchase = BenchmarkMetric.custom("per purchase, 64 in flight (μs)", polarity: .prefersSmaller, useScalingFactor: false)
    static let inFlightRatio = BenchmarkMetric.custom("per purchase ÷ durable write (×1000)", polarity: .prefersSmaller, useScalingFactor: false)

    /// A record about the size of the journal store's record of a paid order.
    static let record = Data(repeating: 0x5A, count: 256)

    static func register() {
        registerFloor(recordsPerFlush: 1)
        registerFloor(recordsPerFlush: 64)
        registerPurchaseRatio()
        registerInFlightRatio()
    }

    static func registerFloor(recordsPerFlush: Int) {
        let scratch = Shared<ScratchDirectory>()
        let log = Shared<LogFile>()
        let batch = Data((0..<recordsPerFlush).flatMap { _ in record })
        Benchmark(
            "Log append + fdatasync, \(recordsPerFlush) record\(recordsPerFlush == 1 ? "" : "s") per flush (\(record.count) bytes each)",
            configuration: .init(
                metrics: [.throughput, .wallClock, perRecord],
                warmupIterations: 10, maxDuration: .seconds(3), maxIterations: 5_000,
                setup: {
                    scratch.value = try ScratchDirectory("floor")
                    log.value = try LogFile(in: scratch.value.path)
                },
                teardown: { log.clear(); scratch.value.remove(); scratch.clear() })
        ) { benchmark in
            do {
                let start = ContinuousClock.now
                try log.value.append(batch)
                try log.value.flush()
                let elapsed = start.duration(to: .now)
                benchmark.measurement(perRecord, Int(elapsed.components.attoseconds / 1_000_000_000) / recordsPerFlush
                                      + Int(elapsed.components.seconds) * 1_000_000_000 / recordsPerFlush)
            } catch {
                benchmark.error("\(error)")
            }
        }
    }

    /// Each iteration times one log append + `fdatasync` and then one durable
    /// purchase on the journal store, in the same directory.
    static func registerPurchaseRatio() {
        let rig = Shared<PurchaseRig>()
        let log = Shared<LogFile>()
        Benchmark(
            "Durable purchase ÷ one log append + fdatasync: JournalOrderStore",
            configuration: .init(
                metrics: [.wallClock, floorTime, purchaseTime, ratio],
                warmupIterations: 10, maxDuration: .seconds(4), maxIterations: 2_000,
                setup: {
                    rig.value = try await PurchaseRig(kind: .journal, maximumConcurrentPurchases: 1)
                    log.value = try LogFile(in: rig.value.scratch.path)
                },
                teardown: { log.clear(); rig.value.close(); rig.clear() })
        ) { benchmark in
            do {
                let clock = ContinuousClock()
                let floorStart = clock.now
                try log.value.append(record)
                try log.value.flush()
                let floor = DurabilityBenchmarks.microseconds(floorStart.duration(to: clock.now))
                let purchaseStart = clock.now
                try await rig.value.purchase(user: "user-1")
                let purchase = DurabilityBenchmarks.microseconds(purchaseStart.duration(to: clock.now))
                benchmark.measurement(floorTime, floor)
                benchmark.measurement(purchaseTime, purchase)
                benchmark.measurement(ratio, purchase * 100 / max(floor, 1))
            } catch {
                benchmark.error("\(error)")
            }
        }
    }

    /// Each iteration times one durable file write and then a round of 256
    /// purchases, 64 in flight, on the journal store, in the same directory.
    static func registerInFlightRatio() {
        let rig = Shared<PurchaseRig>()
        let document = try! OrderCoding.encode(Fixtures.owedOrder(1))
        let round = 256
        Benchmark(
            "64 in flight, per purchase ÷ one durable write: JournalOrderStore",
            configuration: .init(
                metrics: [.wallClock, writeTime, perPurchase, inFlightRatio, PurchaseBenchmarks.purchasesPerSecond],
                warmupIterations: 1, maxDuration: .seconds(6), maxIterations: 100,
                setup: { rig.value = try await PurchaseRig(kind: .journal, maximumConcurrentPurchases: PurchaseBenchmarks.inFlight) },
                teardown: { rig.value.close(); rig.clear() })
        ) { benchmark in
            do {
                let clock = ContinuousClock()
                let writeStart = clock.now
                try DurableFile.replace("probe.json", in: rig.value.scratch.path, with: document)
                let write = DurabilityBenchmarks.microseconds(writeStart.duration(to: clock.now))
                let roundStart = clock.now
                _ = try await rig.value.purchaseConcurrently(total: round, inFlight: PurchaseBenchmarks.inFlight)
                let elapsed = DurabilityBenchmarks.microseconds(roundStart.duration(to: clock.now))
                benchmark.measurement(writeTime, write)
                benchmark.measurement(perPurchase, elapsed / round)
                benchmark.measurement(inFlightRatio, elapsed * 1000 / round / max(write, 1))
                benchmark.measurement(PurchaseBenchmarks.purchasesPerSecond, round * 1_000_000 / max(elapsed, 1))
            } catch {
                benchmark.error("\(error)")
            }
        }
    }
}
