import PurchaseKit

extension Commands {
    static let states = Command(
        name: "states", synopsis: "states [--format mermaid|dot]",
        summary: "Print the order state diagram, made from the transition table.",
        details: """
        Prints every legal status move of OrderTransitionTable, the one table the
        engine checks each move against, as a diagram.

          --format mermaid  a Mermaid stateDiagram-v2 (the default)
          --format dot      a Graphviz digraph (`... | dot -Tsvg > states.svg`)
        """,
        spec: .init(valueOptions: ["format"])
    ) { arguments, context in
        _ = try arguments.positionals([])
        let format = try arguments.choice("format", from: ["mermaid", "dot"], default: "mermaid")
        context.terminal.line(format == "dot" ? StateDiagram.dot() : StateDiagram.mermaid())
        return 0
    }
}

/// The order lifecycle drawn from ``OrderTransitionTable/allMoves``, so the
/// picture cannot drift from the rules.
enum StateDiagram {
    static func mermaid() -> String {
        var lines = ["stateDiagram-v2", "    [*] --> \(OrderStatus.created.rawValue)"]
        for move in OrderTransitionTable.allMoves {
            lines.append("    \(move.from.rawValue) --> \(move.to.rawValue)")
        }
        for status in OrderStatus.allCases where status.isFinal {
            lines.append("    \(status.rawValue) --> [*]")
        }
        return lines.joined(separator: "\n")
    }

    static func dot() -> String {
        var lines = ["digraph OrderLifecycle {", "    rankdir=LR;", "    node [shape=box, style=rounded];"]
        for status in OrderStatus.allCases where status.isFinal {
            lines.append("    \(status.rawValue) [peripheries=2];")
        }
        for move in OrderTransitionTable.allMoves {
            lines.append("    \(move.from.rawValue) -> \(move.to.rawValue);")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}
