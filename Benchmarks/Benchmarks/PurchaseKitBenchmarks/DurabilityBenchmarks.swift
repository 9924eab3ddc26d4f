import Benchmark
import Foundation
import PurchaseKit
import PurchaseRigs

/// Item 2 of the benchmark plan: what durability costs. One durable file
/// write (temporary file, `fsync`, rename, directory `fsync`) of one order's
/// JSON, and, measured side by side in the same iterations, one durable
/// purchase on `FileOrderStore` against one durable write: the ratio is how
/// many durable writes a purchase really costs.
enum DurabilityBenchmarks {
    static let writeTime = BenchmarkMetric.custom("one durable write (μs)", polarity: .prefersSmaller, useScalingFactor: false)
    static let purchaseTime = BenchmarkMetric.custom("one durable purchase (μs)", polarity: .prefersSmaller, useScalingFactor: false)
    static let ratio = BenchmarkMetric.custom("purchase ÷ write (×100)", polarity: .prefersSmaller, useScalingFactor: false)
    static let writesPerPurchase = BenchmarkMetric.custom("store writes per purchase", polarity: .prefersSmaller, useScalingFactor: false)

    static func register() {
        registerDurableWrite()
        registerRatio()
    }

    static func registerDurableWrite() {
        let scratch = Shared<ScratchDirectory>()
        let document = try! OrderCoding.encode(Fixtures.owedOrder(1))
        Benchmark(
            "Durable write of one order file (temp file, fsync, rename, dir fsync)",
            configuration: .init(
                metrics: [.throughput, .wallClock, .mallocCountTotal],
                warmupIterations: 10, maxDuration: .seconds(3), maxIterations: 5_000,
                setup: { scratch.value = try ScratchDirectory("durable-write") },
                teardown: { scratch.value.remove(); scratch.clear() })
        ) { benchmark in
            do {
                try DurableFile.replace("order-1.json", in: scratch.value.path, with: document)
            } catch {
                benchmark.error("\(error)")
            }
        }
    }

    /// Each iteration times one durable write and then one durable purchase in
    /// the same directory, so that both see the same disk at the same moment.
    static func registerRatio() {
        let rig = Shared<PurchaseRig>()
        let counter = Shared<CountingOrderStore>()
        let document = try! OrderCoding.encode(Fixtures.owedOrder(1))
        Benchmark(
            "Durable purchase ÷ one durable write: FileOrderStore",
            configuration: .init(
                metrics: [.wallClock, writeTime, purchaseTime, ratio, writesPerPurchase],
                warmupIterations: 10, maxDuration: .seconds(4), maxIterations: 2_000,
                setup: {
                    rig.value = try await PurchaseRig(kind: .file, maximumConcurrentPurchases: 1) { store in
                        let counting = CountingOrderStore(store)
                        counter.value = counting
                        return counting
                    }
                },
                teardown: { rig.value.close(); rig.clear(); counter.clear() })
        ) { benchmark in
            do {
                let clock = ContinuousClock()
                let directory = rig.value.scratch.path
                let writeStart = clock.now
                try DurableFile.replace("probe.json", in: directory, with: document)
                let write = microseconds(writeStart.duration(to: clock.now))
                let writesBefore = counter.value.writes
                let purchaseStart = clock.now
                try await rig.value.purchase(user: "user-1")
                let purchase = microseconds(purchaseStart.duration(to: clock.now))
                benchmark.measurement(writeTime, write)
                benchmark.measurement(purchaseTime, purchase)
                benchmark.measurement(ratio, purchase * 100 / max(write, 1))
                benchmark.measurement(writesPerPurchase, counter.value.writes - writesBefore)
            } catch {
                benchmark.error("\(error)")
            }
        }
    }

    static func microseconds(_ duration: Duration) -> Int {
        PurchaseRounds.microseconds(duration)
    }
}

/// Passes every call through to a store and counts the calls that write
/// (saves and archives), to show how many writes one purchase makes.
///
/// `@unchecked Sendable` is safe: the count is only touched under the lock,
/// and the wrapped store is `Sendable`.
final class CountingOrderStore: OrderStore, @unchecked Sendable {
    private let base: any OrderStore
    private let lock = NSLock()
    private var count = 0

    init(_ base: any OrderStore) { self.base = base }

    var writes: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    private func counted() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    func save(_ order: Order) async throws {
        counted()
        try await base.save(order)
    }

    func archive(orderID: String) async throws {
        counted()
        try await base.archive(orderID: orderID)
    }

    func remove(orderID: String) async throws {
        counted()
        try await base.remove(orderID: orderID)
    }

    func loadOpenOrders() async throws -> OrderLoadReport { try await base.loadOpenOrders() }
    func openOrders(forUser userID: String) async throws -> [Order] { try await base.openOrders(forUser: userID) }
    func orders(forUser userID: String) async throws -> [Order] { try await base.orders(forUser: userID) }
    func order(id: String) async throws -> Order? { try await base.order(id: id) }
    func order(transactionID: String) async throws -> Order? { try await base.order(transactionID: transactionID) }
    func orders(originalTransactionID: String) async throws -> [Order] {
        try await base.orders(originalTransactionID: originalTransactionID)
    }
    func order(token: String) async throws -> Order? { try await base.order(token: token) }
}
