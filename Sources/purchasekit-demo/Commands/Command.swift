import Foundation

/// What every command gets besides its arguments.
struct CommandContext: Sendable {
    let paths: DemoPaths
    let terminal: Terminal
}

/// One subcommand: its help and its body. The body returns the exit status.
struct Command: Sendable {
    let name: String
    /// The usage line after the executable's name.
    let synopsis: String
    /// One line for the command list.
    let summary: String
    /// The help text below the usage line.
    let details: String
    let spec: Arguments.Spec
    let run: @Sendable (Arguments, CommandContext) async throws -> Int32

    var help: String {
        "USAGE: purchasekit-demo \(synopsis)\n\n\(details)\n\n"
            + "  --state-dir DIR   the folder holding the story (default ./.purchasekit-demo)\n"
            + "  --help, -h        show this help"
    }
}

/// The commands, in the order the help lists them.
enum Commands {
    static let all: [Command] = [
        tour, products, buy, resume, approve, decline, refund, restore, renew,
        entitlements, orders, chaos, states, help,
    ]

    static func named(_ name: String) -> Command? {
        all.first { $0.name == name }
    }

    static var overview: String {
        var text = """
        USAGE: purchasekit-demo [COMMAND] [OPTIONS]

        The PurchaseKit example. With no command, a narrated tour of the purchase
        lifecycle on the simulated store. The commands below continue one story,
        kept in a state folder, across separate runs.

        COMMANDS:

        """
        for command in all {
            text += "  " + command.name.padded(14) + command.summary + "\n"
        }
        text += """

        OPTIONS (every command):
          --state-dir DIR   the folder holding the story (default ./.purchasekit-demo)
          --help, -h        show help; `purchasekit-demo COMMAND --help` for a command

        Exit status: 0 success, 1 failure, 2 bad arguments, 3 simulated crash (buy --crash-after).
        """
        return text
    }

    static let help = Command(
        name: "help", synopsis: "help [COMMAND]", summary: "Show help for the demo or one command.",
        details: "Prints the list of commands, or the help of COMMAND.", spec: .init()
    ) { arguments, context in
        guard arguments.positionals.count <= 1 else {
            throw UsageError(message: "unexpected argument '\(arguments.positionals[1])'", command: "help")
        }
        guard let name = arguments.positionals.first else {
            context.terminal.line(overview)
            return 0
        }
        guard let command = named(name) else {
            throw UsageError(message: "unknown command '\(name)'", command: nil)
        }
        context.terminal.line(command.help)
        return 0
    }
}
