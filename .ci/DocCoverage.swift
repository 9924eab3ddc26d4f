// Fails when a public symbol of a module has no documentation comment.
//
// Reads the symbol graph the compiler emits (`-emit-symbol-graph`) and lists
// every public symbol without a doc comment, except those that take their
// documentation from elsewhere: implementations of a protocol requirement
// (DocC shows the requirement's text) and the members the compiler or the
// standard protocols provide (`hash(into:)`, `init(from:)`, `rawValue`...).
//
// Usage: doc-coverage <Module.symbols.json>
import Foundation

struct Failure: Error, CustomStringConvertible {
    let description: String
}

func run() throws {
    guard CommandLine.arguments.count == 2 else { throw Failure(description: "usage: doc-coverage <Module.symbols.json>") }
    let data = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
    guard let graph = try JSONSerialization.jsonObject(with: data) as? [String: Any],
          let symbols = graph["symbols"] as? [[String: Any]],
          let relationships = graph["relationships"] as? [[String: Any]] else {
        throw Failure(description: "not a symbol graph: \(CommandLine.arguments[1])")
    }

    // Members the standard protocols give every conforming type.
    let standardWitnesses: Set<String> = [
        "hash(into:)", "hashValue", "init(rawValue:)", "rawValue", "init(from:)", "encode(to:)",
        "==(_:_:)", "<(_:_:)", "description", "debugDescription", "customMirror",
        "errorDescription", "failureReason", "helpAnchor", "recoverySuggestion", "id", "next()",
    ]

    var path: [String: [String]] = [:]
    var kind: [String: String] = [:]
    for symbol in symbols {
        guard let identifier = (symbol["identifier"] as? [String: Any])?["precise"] as? String else { continue }
        path[identifier] = symbol["pathComponents"] as? [String] ?? []
        kind[identifier] = (symbol["kind"] as? [String: Any])?["identifier"] as? String
    }

    // The names every protocol of the module requires, and which protocols each type conforms to.
    var requirements: [String: Set<String>] = [:]   // protocol name -> requirement names
    var conformances: [String: Set<String>] = [:]   // type path -> protocol names
    for relation in relationships {
        guard let kindName = relation["kind"] as? String,
              let source = relation["source"] as? String,
              let target = relation["target"] as? String else { continue }
        switch kindName {
        case "requirementOf", "optionalRequirementOf":
            if let protocolPath = path[target], let name = path[source]?.last {
                requirements[protocolPath.joined(separator: "."), default: []].insert(name)
            }
        case "conformsTo":
            if let typePath = path[source] {
                let fallback = (relation["targetFallback"] as? String) ?? target
                let protocolName = path[target]?.joined(separator: ".") ?? fallback
                conformances[typePath.joined(separator: "."), default: []].insert(protocolName)
            }
        default:
            break
        }
    }

    var undocumented: [String] = []
    for symbol in symbols {
        guard let identifier = (symbol["identifier"] as? [String: Any])?["precise"] as? String,
              let components = path[identifier], let name = components.last else { continue }
        if let comment = symbol["docComment"] as? [String: Any],
           let lines = comment["lines"] as? [[String: Any]], !lines.isEmpty { continue }
        if standardWitnesses.contains(name) { continue }
        let parent = components.dropLast().joined(separator: ".")
        let inherited = (conformances[parent] ?? []).contains { requirements[$0]?.contains(name) ?? false }
        if inherited { continue }
        undocumented.append("\(components.joined(separator: ".")) (\(kind[identifier] ?? "?"))")
    }

    if undocumented.isEmpty {
        print("doc coverage: every public symbol of \(symbols.count) is documented")
        return
    }
    for entry in undocumented.sorted() { print("undocumented: \(entry)") }
    throw Failure(description: "\(undocumented.count) public symbols have no documentation comment")
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
