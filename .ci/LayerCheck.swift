// The layers of PurchaseKit, checked: each folder of Sources/PurchaseKit may
// use the top-level types of the folders below it (and its own), never of a
// folder above. Apps still `import PurchaseKit` as one module; this check is
// what keeps the edges inside it running one way. Usage:
//   LayerCheck <path of Sources/PurchaseKit>
// Exits 1 and names each file and type that crosses a layer upwards.
import Foundation

/// Which folders each folder may use, besides itself. The order is the
/// layering: support, time and logging at the bottom; the model (with its
/// error type, which names order statuses and which model validation throws);
/// the store, persistence and verification protocols over the model only; the
/// lifecycle (the transition table, the pure state machine, matching, the
/// retry schedule) over the model and the values the store and the verifier
/// hand it; the customer's view over orders; the engine, which uses
/// everything, at the top.
let allowed: [String: Set<String>] = [
    "Support": [],
    "Time": ["Support"],
    "Logging": ["Support", "Time"],
    "Model": ["Support", "Time", "Logging"],
    "Store": ["Support", "Time", "Logging", "Model"],
    "Persistence": ["Support", "Time", "Logging", "Model"],
    "Verification": ["Support", "Time", "Logging", "Model"],
    "Lifecycle": ["Support", "Time", "Logging", "Model", "Store", "Verification"],
    "Customer": ["Support", "Time", "Logging", "Model", "Store", "Lifecycle"],
    "Engine": ["Support", "Time", "Logging", "Model", "Store", "Persistence", "Verification", "Lifecycle",
               "Customer"],
]

/// The text without comments and string literals, so that only code is read.
func code(of text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    let chars = Array(text.unicodeScalars)
    var i = 0
    var blockDepth = 0
    while i < chars.count {
        let c = chars[i]
        let next: Unicode.Scalar? = i + 1 < chars.count ? chars[i + 1] : nil
        if blockDepth > 0 {
            if c == "*", next == "/" { blockDepth -= 1; i += 2; continue }
            if c == "/", next == "*" { blockDepth += 1; i += 2; continue }
            if c == "\n" { out.unicodeScalars.append(c) }
            i += 1
            continue
        }
        if c == "/", next == "/" {
            while i < chars.count, chars[i] != "\n" { i += 1 }
            continue
        }
        if c == "/", next == "*" { blockDepth = 1; i += 2; continue }
        if c == "\"" {
            // A string literal (single-line or multi-line); interpolations are
            // skipped with it, which only loses references, never invents one.
            let multiline = i + 2 < chars.count && chars[i + 1] == "\"" && chars[i + 2] == "\""
            i += multiline ? 3 : 1
            while i < chars.count {
                if chars[i] == "\\" { i += 2; continue }
                if multiline {
                    if chars[i] == "\"", i + 2 < chars.count, chars[i + 1] == "\"", chars[i + 2] == "\"" { i += 3; break }
                } else if chars[i] == "\"" || chars[i] == "\n" {
                    i += 1
                    break
                }
                i += 1
            }
            out += "\"\""
            continue
        }
        out.unicodeScalars.append(c)
        i += 1
    }
    return out
}

/// The identifiers of a piece of code, in order.
func identifiers(in code: String) -> [Substring] {
    var result: [Substring] = []
    var start: String.Index?
    for index in code.indices {
        let ch = code[index]
        if ch.isLetter || ch == "_" || (start != nil && ch.isNumber) {
            if start == nil { start = index }
        } else if let begin = start {
            result.append(code[begin..<index])
            start = nil
        }
    }
    if let begin = start { result.append(code[begin...]) }
    return result
}

/// The types a file declares at the top level (brace depth zero).
func topLevelTypes(in code: String) -> [String] {
    var names: [String] = []
    var depth = 0
    var line = ""
    func scan(_ text: String) {
        let words = identifiers(in: text)
        for (k, word) in words.enumerated() where k + 1 < words.count {
            if ["struct", "enum", "class", "actor", "protocol", "typealias"].contains(String(word)) {
                names.append(String(words[k + 1]))
            }
        }
    }
    for ch in code {
        if ch == "{" {
            if depth == 0 { scan(line) }
            depth += 1
            line = ""
        } else if ch == "}" {
            depth -= 1
            line = ""
        } else if depth == 0 {
            line.append(ch)
            if ch == "\n" { scan(line); line = "" }
        }
    }
    if depth == 0 { scan(line) }
    return names
}

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write("usage: LayerCheck <Sources/PurchaseKit>\n".data(using: .utf8)!)
    exit(2)
}
let root = URL(fileURLWithPath: arguments[1])
guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
    FileHandle.standardError.write("LayerCheck: cannot read \(root.path)\n".data(using: .utf8)!)
    exit(2)
}
var files: [(folder: String, path: String, code: String)] = []
var problems: [String] = []
for case let url as URL in walker where url.pathExtension == "swift" {
    let relative = String(url.path.dropFirst(root.path.count + 1))
    let folder = String(relative.split(separator: "/").first ?? "")
    guard allowed[folder] != nil else {
        problems.append("\(relative): the folder '\(folder)' has no place in the layers; add it to .ci/LayerCheck.swift")
        continue
    }
    guard let text = try? String(contentsOf: url, encoding: .utf8) else {
        problems.append("\(relative): cannot be read")
        continue
    }
    files.append((folder, relative, code(of: text)))
}
var home: [String: String] = [:]
for file in files {
    for name in topLevelTypes(in: file.code) {
        if let other = home[name], other != file.folder {
            problems.append("\(file.path): '\(name)' is declared in both \(other)/ and \(file.folder)/")
        }
        home[name] = file.folder
    }
}
for file in files.sorted(by: { $0.path < $1.path }) {
    let mayUse = allowed[file.folder, default: []]
    var reported: Set<String> = []
    for word in identifiers(in: file.code) {
        let name = String(word)
        guard let folder = home[name], folder != file.folder, !mayUse.contains(folder),
              reported.insert(name).inserted else { continue }
        problems.append("\(file.path): uses '\(name)' from \(folder)/, a layer it must not reach")
    }
}
if problems.isEmpty {
    print("Layers hold: \(files.count) files, \(home.count) top-level types, no edge runs upwards.")
} else {
    for problem in problems { print(problem) }
    print("\(problems.count) layer problem(s).")
    exit(1)
}
