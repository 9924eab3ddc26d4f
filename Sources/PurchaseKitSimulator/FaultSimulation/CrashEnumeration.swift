import Foundation
import PurchaseKit

extension FaultSimulation {
    /// One purchase whose crash points are enumerated.
    public struct CrashScenario: Sendable, Hashable, CustomStringConvertible {
        /// A short name for messages.
        public var name: String
        let productID: String
        let behavior: PurchaseBehavior
        let faults: DeliveryFaults
        /// The order store saves the order that comes to rest straight into
        /// the archive (one call), or the engine saves it, then archives it.
        var savesIntoArchive = true

        public var description: String { name }

        /// A consumable, a non-consumable, a subscription, a non-renewing
        /// subscription whose token is lost and whose updates come twice, an
        /// Ask to Buy approved later, and a consumable on a store that saves,
        /// then archives, in two calls.
        public static let all: [CrashScenario] = [
            CrashScenario(name: "consumable", productID: SimulationWorld.coins, behavior: .success, faults: .none),
            CrashScenario(name: "non-consumable", productID: SimulationWorld.pro, behavior: .success, faults: .none),
            CrashScenario(name: "subscription", productID: SimulationWorld.monthly, behavior: .success, faults: .none),
            CrashScenario(name: "lost token, duplicates", productID: SimulationWorld.season, behavior: .success,
                          faults: DeliveryFaults(losesOrderToken: true, extraDeliveries: 1)),
            CrashScenario(name: "ask to buy approved", productID: SimulationWorld.coins, behavior: .askToBuy, faults: .none),
            CrashScenario(name: "consumable, saved then archived", productID: SimulationWorld.coins, behavior: .success,
                          faults: .none, savesIntoArchive: false),
        ]
    }

    /// What the crash enumeration ran and found.
    public struct CrashReport: Sendable {
        /// Counted calls (writes, store and verifier calls) of each scenario's uncrashed run, by scenario.
        public var pathCalls: [String: [String]] = [:]
        /// Runs with one crash: before and after every counted call.
        public var singleCrashRuns = 0
        /// Runs with a second crash in the recovering process, before and after each of its calls.
        public var pairRuns = 0
        /// One line per failing run.
        public var failures: [String] = []
        /// Wall time, for the report only.
        public var seconds: Double = 0
    }

    /// Crashes every scenario's purchase right before and right after each
    /// persisted write and each store or verifier call, then, for each of
    /// those, crashes the recovering process before and after each of its own
    /// calls; every run then goes through the quiet phase and the end checks.
    public static func enumerateCrashPoints(_ scenarios: [CrashScenario] = CrashScenario.all) async -> CrashReport {
        let started = Date()
        var report = CrashReport()
        for scenario in scenarios {
            let uncrashed = await crashRun(scenario, nil, nil)
            report.pathCalls[scenario.name] = uncrashed.firstKinds
            if let failure = uncrashed.failure { report.failures.append("\(scenario), no crash: \(failure)") }
            for first in points(count: uncrashed.firstKinds.count) {
                let single = await crashRun(scenario, first, nil)
                report.singleCrashRuns += 1
                let firstName = "\(first) (\(single.firstKinds[safe: first.call - 1] ?? "?"))"
                if let failure = single.failure { report.failures.append("\(scenario), \(firstName): \(failure)") }
                for second in points(count: single.secondKinds.count) {
                    let pair = await crashRun(scenario, first, second)
                    report.pairRuns += 1
                    if let failure = pair.failure {
                        let secondName = "\(second) (\(single.secondKinds[safe: second.call - 1] ?? "?"))"
                        report.failures.append("\(scenario), \(firstName), then in recovery \(secondName): \(failure)")
                    }
                }
            }
        }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    private static func points(count: Int) -> [ProcessKill.Point] {
        guard count > 0 else { return [] }
        return (1...count).flatMap { [ProcessKill.Point(call: $0, timing: .before), ProcessKill.Point(call: $0, timing: .after)] }
    }

    private struct CrashOutcome: Sendable {
        var firstKinds: [String]
        var secondKinds: [String]
        var failure: String?
    }

    private static func crashRun(_ scenario: CrashScenario, _ first: ProcessKill.Point?, _ second: ProcessKill.Point?) async -> CrashOutcome {
        await onOwnExecutor { starter in
            await WorldIsolation(starter: starter).run { _ in
                let run = SimulationRun(seed: 1, maximumPurchases: 1, sabotage: .none, rates: FaultPlan.Rates(),
                                        profile: SimulationWorld.Profile(savesIntoArchive: scenario.savesIntoArchive),
                                        starter: starter, keepsTrace: false)
                let outcome = await run.executeCrashRun(scenario, first: first, second: second)
                return CrashOutcome(firstKinds: outcome.firstKinds, secondKinds: outcome.secondKinds, failure: outcome.failure)
            }
        }
    }
}

extension SimulationRun {
    /// The purchase of `scenario` (and its approval), the first process dying
    /// at `first` and the process recovering from it at `second`.
    fileprivate func executeCrashRun(_ scenario: FaultSimulation.CrashScenario, first: ProcessKill.Point?,
                                     second: ProcessKill.Point?) async -> (firstKinds: [String], secondKinds: [String], failure: String?) {
        await launch(dyingAt: first)
        purchases = 1
        await purchase(scenario.productID, user: SimulationRun.users[0], quantity: 1,
                       script: PurchaseScript(scenario.behavior, faults: scenario.faults))
        await endStep("purchase", relaunchDyingAt: apps.count == 1 ? second : nil)
        if scenario.behavior == .askToBuy {
            for pending in await world.store.pendingAskToBuy() {
                try? await world.store.approveAskToBuy(id: pending.id)
                await app.settle()
            }
            await endStep("approve", relaunchDyingAt: apps.count == 1 ? second : nil)
        }
        await endStep("recovery")
        let firstKinds = apps[0].kill.callKinds
        let secondKinds = apps.count > 1 ? apps[1].kill.callKinds : []
        await quietPhase(firstStep: 1)
        await checker.checkEnd(app: app, apps: apps, results: results.withLock { $0 }, deliveredHere: deliveredHere, firstCreditHere: firstCreditHere, into: &verdict)
        await tearDown()
        return (firstKinds, secondKinds, verdict.passed ? nil : verdict.messages.joined(separator: "; "))
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
