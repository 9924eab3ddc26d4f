import Foundation
import PurchaseKitSimulator

extension Commands {
    static let chaos = Command(
        name: "chaos", synopsis: "chaos [--runs N] [--seed S] [--jobs J] [--trace] [--json]",
        summary: "Run the fault simulation and check no order is lost or doubled.",
        details: """
        Runs N seeded stories of purchases under crashes, duplicate and lost store
        updates, verifier faults and user switches, and checks the invariants: no
        paid order lost, none credited twice or to the wrong user, every
        transaction finished, no invalid transition. A failing seed prints the
        command that replays it.

          --runs N          how many runs (default 100)
          --seed S          the first run's seed (default 1); run i uses S + i
          --jobs J          how many runs go at once, one thread each (default:
                            one per core); the report and its trace hash are
                            the same for every J
          --trace           print every step of every run and the world after it
                            (use it with --runs 1 to read a failing seed's story)
          --json            print the report as JSON (runs, purchases, lost,
                            duplicated, wrongUser, unfinished, invalidTransitions, seconds, ...)
        """,
        spec: .init(valueOptions: ["runs", "seed", "jobs"], flags: ["json", "trace"])
    ) { arguments, context in
        _ = try arguments.positionals([])
        let runs = try arguments.positiveInt("runs", default: 100)
        let jobs = try arguments.positiveInt("jobs", default: ProcessInfo.processInfo.activeProcessorCount)
        var seed: UInt64 = 1
        if let text = arguments.value("seed") {
            guard let value = UInt64(text) else {
                throw UsageError(message: "--seed must be a whole number from 0 to \(UInt64.max); got '\(text)'", command: "chaos")
            }
            seed = value
        }
        let report: FaultSimulation.Report
        if arguments.has("trace") {
            var traced = FaultSimulation.Report()
            for index in 0..<runs {
                let runSeed = seed &+ UInt64(index)
                let result = await FaultSimulation.runOne(seed: runSeed)
                context.terminal.line("seed \(runSeed):")
                for line in result.trace { context.terminal.line("  " + line) }
                traced.add(result, replayCommand: FaultSimulation.replayCommand(seed: runSeed))
            }
            report = traced
        } else {
            var options = FaultSimulation.Options(runs: runs, firstSeed: seed)
            options.parallelism = jobs
            report = await FaultSimulation.run(options)
        }
        if arguments.has("json") {
            context.terminal.line(try JSONOutput.text(report))
        } else {
            let terminal = context.terminal
            terminal.line("\(report.runs) runs, \(report.purchases) purchases in \(String(format: "%.2f", report.seconds)) s; faults: "
                + report.faults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            terminal.line("lost \(report.lost), duplicated \(report.duplicated), wrong user \(report.wrongUser), "
                + "unfinished \(report.unfinished), invalid transitions \(report.invalidTransitions), "
                + "entitlement violations \(report.entitlementViolations), secret leaks \(report.secretLeaks)")
            for failure in report.failures {
                terminal.line(terminal.paint("seed \(failure.seed): \(failure.message)", .red) + "\n  replay: \(failure.replayCommand)")
            }
            terminal.line("trace hash \(report.traceHash)")
        }
        return report.failures.isEmpty ? 0 : 1
    }
}
