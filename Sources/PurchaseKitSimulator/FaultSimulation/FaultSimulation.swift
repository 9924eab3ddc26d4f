import Foundation
import PurchaseKit

/// Deterministic fault simulation: seeded, randomized purchase histories run
/// against the real ``PurchaseEngine`` with faults everywhere (store failures
/// and cancels, Ask to Buy, interrupted purchases, lost order tokens,
/// duplicate and late updates, verifier timeouts, server errors, lost
/// replies, forged receipts, write and finish errors, crashes, clock jumps,
/// user switches), then a quiet phase, with the design's correctness rules
/// checked after every step: every paid transaction credited exactly once, to
/// the user who paid, and finished; nothing granted that was not paid; no
/// invalid transition; no receipt or token in the log.
///
/// ```swift
/// let report = await FaultSimulation.run(.init(runs: 1_000))
/// for failure in report.failures { print(failure.replayCommand) }
/// ```
///
/// The same seed gives the same trace, and so the same ``RunResult/traceHash``.
public struct FaultSimulation: Sendable {
    /// The environment variable the test suite reads to replay one seed.
    public static let seedEnvironmentVariable = "PURCHASEKIT_CHAOS_SEED"

    /// A deliberate defect, to prove that the checks can fail.
    public enum Sabotage: String, Sendable, Hashable, Codable {
        /// A correct world.
        case none
        /// The verifier answers "delivered" for consumables without crediting anyone.
        case deliversWithoutCredit
        /// The order store acknowledges saves of delivered and completed orders and keeps nothing.
        case dropsDeliveredSaves
        /// Every run keeps its orders in a file store on a disk that
        /// acknowledges flushes and does nothing: a power loss takes what the
        /// store believed durable.
        case diskIgnoresFlushes
    }

    /// What to run.
    public struct Options: Sendable {
        /// How many runs (seeds `firstSeed`, `firstSeed + 1`, ...).
        public var runs: Int
        /// The seed of the first run.
        public var firstSeed: UInt64
        /// The largest number of purchases in one run's history (at least 1).
        public var maximumPurchases: Int = 20
        /// A deliberate defect; `.none` for a real check.
        public var sabotage: Sabotage = .none
        /// How many runs go at once, each on its own thread; one per core by
        /// default. Runs do not share anything, and the report adds them up in
        /// seed order, so the width changes the wall time and nothing else.
        public var parallelism: Int = ProcessInfo.processInfo.activeProcessorCount

        public init(runs: Int, firstSeed: UInt64 = 1, maximumPurchases: Int = 20) {
            self.runs = runs
            self.firstSeed = firstSeed
            self.maximumPurchases = maximumPurchases
        }
    }

    /// A failing run: its seed, what broke first, and how to replay it.
    public struct Failure: Sendable, Codable, Hashable {
        /// The seed that replays the run.
        public var seed: UInt64
        /// The findings, one per line.
        public var message: String
        /// The command that replays exactly this run.
        public var replayCommand: String
    }

    /// The outcome of one run.
    public struct RunResult: Sendable, Codable {
        /// The seed.
        public var seed: UInt64
        /// Purchase calls made.
        public var purchases: Int
        /// Faults injected, by kind.
        public var faults: [String: Int]
        /// Paid transactions never credited, or finished or delivered without a credit.
        public var lost: Int
        /// Transactions credited or delivered more than once.
        public var duplicated: Int
        /// Transactions credited to someone other than the payer.
        public var wrongUser: Int
        /// Store transactions left unfinished at the end.
        public var unfinished: Int
        /// Moves the transition table refused.
        public var invalidTransitions: Int
        /// Entitlements or balances the ledger does not back, forged receipts credited, false successes,
        /// purchase calls that never returned, and two payments in flight at once for one user and product.
        public var entitlementViolations: Int
        /// Log lines containing a receipt or an order token.
        public var secretLeaks: Int
        /// One line per finding; empty when the run passed.
        public var failures: [String]
        /// What happened, step by step, with the world after each step. Empty
        /// for the runs of ``FaultSimulation/run(_:)``, which keep only its hash.
        public var trace: [String]
        /// A 64-bit fingerprint of the trace, in hex: the same seed gives the same hash.
        public var traceHash: String

        /// Whether every rule held.
        public var passed: Bool { failures.isEmpty }
    }

    /// The totals of many runs.
    public struct Report: Sendable, Codable {
        /// Runs made.
        public var runs: Int
        /// Purchase calls made.
        public var purchases: Int
        /// Faults injected, by kind.
        public var faults: [String: Int]
        /// Paid transactions lost (never credited, or finished or delivered without a credit).
        public var lost: Int
        /// Transactions credited or delivered more than once.
        public var duplicated: Int
        /// Transactions credited to someone other than the payer.
        public var wrongUser: Int
        /// Store transactions left unfinished at the end of a run.
        public var unfinished: Int
        /// Moves the transition table refused.
        public var invalidTransitions: Int
        /// Entitlements or balances the ledger does not back, forged receipts credited, false successes,
        /// purchase calls that never returned, and two payments in flight at once for one user and product.
        public var entitlementViolations: Int
        /// Log lines containing a receipt or an order token.
        public var secretLeaks: Int
        /// Wall time, for the report only.
        public var seconds: Double
        /// The failing runs.
        public var failures: [Failure]
        /// FNV-1a 64 over every run's trace hash, in order.
        public var traceHash: String

        /// An empty report.
        public init() {
            runs = 0; purchases = 0; faults = [:]; lost = 0; duplicated = 0; wrongUser = 0; unfinished = 0
            invalidTransitions = 0; entitlementViolations = 0; secretLeaks = 0; seconds = 0; failures = []
            traceHash = StableHash().hex
        }

        /// Adds one run's outcome.
        public mutating func add(_ result: RunResult, replayCommand: String) {
            runs += 1
            purchases += result.purchases
            faults.merge(result.faults, uniquingKeysWith: +)
            lost += result.lost
            duplicated += result.duplicated
            wrongUser += result.wrongUser
            unfinished += result.unfinished
            invalidTransitions += result.invalidTransitions
            entitlementViolations += result.entitlementViolations
            secretLeaks += result.secretLeaks
            if !result.passed {
                failures.append(Failure(seed: result.seed, message: result.failures.joined(separator: "\n"),
                                        replayCommand: replayCommand))
            }
            traceHash = StableHash.of([traceHash, result.traceHash]).hexString
        }
    }

    /// The command that replays one seed with the example executable.
    /// A run replays byte for byte in the build configuration it ran in: the
    /// optimizer may remove suspension points, so a debug and a release build
    /// can interleave a run's tasks differently.
    public static func replayCommand(seed: UInt64) -> String {
        #if DEBUG
        "swift run purchasekit-demo chaos --runs 1 --seed \(seed)"
        #else
        "swift run -c release purchasekit-demo chaos --runs 1 --seed \(seed)"
        #endif
    }

    /// Runs `options.runs` seeds, `options.parallelism` at a time, and adds
    /// up their results in seed order.
    public static func run(_ options: Options) async -> Report {
        let started = Date()
        let count = max(0, options.runs)
        let width = max(1, min(options.parallelism, count))
        // A long run holds back the report, not the runs behind it: finished
        // runs wait in `finished` until every run before them is in.
        let tally = Locked(Tally())
        let deliver: @Sendable (Int, RunResult) -> Void = { index, result in
            tally.withLock { $0.take(index, result) }
        }
        let operation: @Sendable (Int, any TaskStarter) async -> RunResult = { index, starter in
            await runInWorld(seed: options.firstSeed &+ UInt64(index), maximumPurchases: options.maximumPurchases,
                             sabotage: options.sabotage, keepsTrace: false, starter: starter)
        }
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            await SimulationLanes.run(count: count, width: width, operation, deliver: deliver)
        } else {
            await withTaskGroup(of: Void.self) { group in
                let next = RunIndices(count: count)
                for _ in 0..<width {
                    group.addTask {
                        while let index = next.take() {
                            deliver(index, await operation(index, DefaultTaskStarter()))
                        }
                    }
                }
            }
        }
        var report = tally.withLock { $0.report }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// Runs one seed.
    public static func runOne(seed: UInt64, maximumPurchases: Int = 20) async -> RunResult {
        await runOne(seed: seed, maximumPurchases: maximumPurchases, sabotage: .none)
    }

    /// Runs one seed in a world with a deliberate defect.
    public static func runOne(seed: UInt64, maximumPurchases: Int = 20, sabotage: Sabotage) async -> RunResult {
        await runOne(seed: seed, maximumPurchases: maximumPurchases, sabotage: sabotage, keepsTrace: true)
    }

    /// Runs one seed, keeping its trace's lines or only their hash.
    static func runOne(seed: UInt64, maximumPurchases: Int, sabotage: Sabotage, keepsTrace: Bool) async -> RunResult {
        await onOwnExecutor { starter in
            await runInWorld(seed: seed, maximumPurchases: maximumPurchases, sabotage: sabotage, keepsTrace: keepsTrace,
                             starter: starter)
        }
    }

    /// Runs one seed with `starter`, its driver isolated to the world.
    private static func runInWorld(seed: UInt64, maximumPurchases: Int, sabotage: Sabotage, keepsTrace: Bool,
                                   starter: any TaskStarter) async -> RunResult {
        await WorldIsolation(starter: starter).run { _ in
            await SimulationRun(seed: seed, maximumPurchases: maximumPurchases, sabotage: sabotage, starter: starter,
                                keepsTrace: keepsTrace).execute()
        }
    }

    /// The report of a batch, added up in seed order as runs end in any order.
    private struct Tally {
        var report = Report()
        var finished: [Int: RunResult] = [:]
        var reported = 0

        mutating func take(_ index: Int, _ result: RunResult) {
            finished[index] = result
            while let result = finished.removeValue(forKey: reported) {
                report.add(result, replayCommand: FaultSimulation.replayCommand(seed: result.seed))
                reported += 1
            }
        }
    }
}

extension UInt64 {
    /// Sixteen hex digits.
    var hexString: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
