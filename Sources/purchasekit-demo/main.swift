import Foundation
import PurchaseKit

// purchasekit-demo: the PurchaseKit example. `Commands` lists what it can do;
// with no command it runs the tour.

/// Parses, runs, and maps every failure to a message and an exit status: 2 for
/// bad arguments, 1 for failures; never a stack trace.
func runDemo(_ words: [String]) async -> Int32 {
    let arguments: Arguments
    do {
        arguments = try Arguments.parse(words) { Commands.named($0)?.spec }
    } catch {
        return usageFailure(error)
    }
    let command = arguments.command.flatMap(Commands.named) ?? Commands.tour
    let terminal = Terminal.current
    if arguments.has("help") {
        terminal.line(arguments.command == nil ? Commands.overview : command.help)
        return 0
    }
    let context = CommandContext(paths: DemoPaths(arguments.value("state-dir") ?? ".purchasekit-demo"), terminal: terminal)
    do {
        return try await command.run(arguments, context)
    } catch let error as UsageError {
        return usageFailure(error)
    } catch let error as PurchaseKitError {
        Terminal.error("error: \(error.message) \(error.advice)")
    } catch let error as DemoError {
        Terminal.error("error: \(error.message)")
    } catch {
        Terminal.error("error: \(error.localizedDescription)")
    }
    return 1
}

func usageFailure(_ error: UsageError) -> Int32 {
    let usage = error.command.flatMap(Commands.named)?.help ?? Commands.overview
    Terminal.error("error: \(error.message)\n\n\(usage)")
    return 2
}

let status = await runDemo(Array(CommandLine.arguments.dropFirst()))
Terminal.flush()
exit(status)
