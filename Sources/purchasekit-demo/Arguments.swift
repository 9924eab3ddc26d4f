/// A mistake in the command line: printed with the usage, exit code 2.
struct UsageError: Error {
    let message: String
    /// The command whose usage to print; nil for the overall usage.
    let command: String?
}

/// The command line after parsing: words, options with values, and flags.
struct Arguments {
    /// The command word (nil: none given, the tour runs).
    var command: String?
    /// The words after the command.
    var positionals: [String] = []
    /// Options given with a value, by name without dashes (`state-dir`).
    var values: [String: String] = [:]
    /// Options given without a value (`json`, `help`).
    var flags: Set<String> = []

    /// What one command accepts, besides the global `--state-dir` and `--help`.
    struct Spec {
        var valueOptions: Set<String> = []
        var flags: Set<String> = []
    }

    /// Options every command takes.
    static let globalValueOptions: Set<String> = ["state-dir"]
    static let globalFlags: Set<String> = ["help"]

    /// Splits the words. `spec(command)` says what a command accepts, or nil
    /// when the command does not exist. Accepts `--name value`, `--name=value`,
    /// `-h`, and `--` before words that start with a dash.
    static func parse(_ words: [String], spec: (String) -> Spec?) throws(UsageError) -> Arguments {
        var result = Arguments()
        var accepted = Spec(valueOptions: globalValueOptions, flags: globalFlags)
        var index = 0
        var onlyWords = false
        while index < words.count {
            let word = words[index]
            index += 1
            if onlyWords || !word.hasPrefix("-") || word == "-" {
                if result.command == nil && !onlyWords {
                    guard let commandSpec = spec(word) else {
                        throw UsageError(message: "unknown command '\(word)'", command: nil)
                    }
                    result.command = word
                    accepted.valueOptions.formUnion(commandSpec.valueOptions)
                    accepted.flags.formUnion(commandSpec.flags)
                } else {
                    result.positionals.append(word)
                }
                continue
            }
            if word == "--" {
                onlyWords = true
                continue
            }
            if word == "-h" {
                result.flags.insert("help")
                continue
            }
            guard word.hasPrefix("--"), word.count > 2 else {
                throw UsageError(message: "unknown option '\(word)'", command: result.command)
            }
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if accepted.flags.contains(name) {
                guard inlineValue == nil else {
                    throw UsageError(message: "option '--\(name)' takes no value", command: result.command)
                }
                result.flags.insert(name)
            } else if accepted.valueOptions.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < words.count else {
                        throw UsageError(message: "option '--\(name)' needs a value", command: result.command)
                    }
                    value = words[index]
                    index += 1
                }
                guard !value.isEmpty else {
                    throw UsageError(message: "option '--\(name)' needs a non-empty value", command: result.command)
                }
                guard result.values[name] == nil else {
                    throw UsageError(message: "option '--\(name)' is given twice", command: result.command)
                }
                result.values[name] = value
            } else {
                throw UsageError(message: "unknown option '--\(name)'", command: result.command)
            }
        }
        return result
    }

    /// Whether `--name` was given.
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// The value of `--name`, if given.
    func value(_ name: String) -> String? { values[name] }

    /// The words after the command, checked for count.
    func positionals(_ names: [String]) throws(UsageError) -> [String] {
        guard positionals.count == names.count else {
            if positionals.count < names.count {
                throw UsageError(message: "missing \(names[positionals.count])", command: command)
            }
            throw UsageError(message: "unexpected argument '\(positionals[names.count])'", command: command)
        }
        return positionals
    }

    /// A positive whole number option, or `defaultValue` when absent.
    func positiveInt(_ name: String, default defaultValue: Int, maximum: Int = 1_000_000) throws(UsageError) -> Int {
        guard let text = values[name] else { return defaultValue }
        guard let number = Int(text), number >= 1, number <= maximum else {
            throw UsageError(message: "--\(name) must be a whole number from 1 to \(maximum); got '\(text)'", command: command)
        }
        return number
    }

    /// One of the allowed values of an option, or `defaultValue` when absent.
    func choice(_ name: String, from allowed: [String], default defaultValue: String) throws(UsageError) -> String {
        guard let text = values[name] else { return defaultValue }
        guard allowed.contains(text) else {
            throw UsageError(message: "--\(name) must be one of \(allowed.joined(separator: ", ")); got '\(text)'", command: command)
        }
        return text
    }
}
