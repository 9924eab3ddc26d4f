#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Where the demo writes, and whether it may colour: ANSI colours only when
/// standard output is a terminal and `NO_COLOR` is not set.
struct Terminal: Sendable {
    /// Whether to colour standard output.
    let colors: Bool
    /// Whether to write nothing: a command printing JSON keeps its narration out of standard output.
    var isSilent = false

    static let current = Terminal(colors: isatty(STDOUT_FILENO) == 1
        && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        && ProcessInfo.processInfo.environment["TERM"] != "dumb")

    enum Style: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", blue = "34", magenta = "35", cyan = "36"
    }

    /// The same terminal, writing nothing (for the narration of a `--json` command).
    var silenced: Terminal {
        var copy = Terminal(colors: false)
        copy.isSilent = true
        return copy
    }

    /// `text` in `style`, or plain when not colouring.
    func paint(_ text: String, _ style: Style) -> String {
        colors ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// A line on standard output.
    func line(_ text: String = "") {
        guard !isSilent else { return }
        print(text)
    }

    /// A line on standard error (unbuffered, so it survives an abrupt exit).
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Pushes buffered standard output out, before a child process writes or the process ends abruptly.
    static func flush() {
        fflush(nil) // every output stream; naming `stdout` is not concurrency-safe in Swift 6
    }
}

extension Date {
    /// `2026-01-01 00:00:07` in UTC: the demo's clock is a manual one, so dates are reproducible.
    var demoText: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: self)
    }
}

extension String {
    /// The string padded with spaces to `width` characters.
    func padded(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
