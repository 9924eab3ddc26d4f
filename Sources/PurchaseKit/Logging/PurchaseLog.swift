import Foundation

/// How much a log line matters.
public enum PurchaseLogLevel: Int, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Every step, for following one purchase closely.
    case trace
    /// Detail for debugging: updates ignored as duplicates, say.
    case debug
    /// The lifecycle: orders made, moved, archived.
    case info
    /// Worth knowing, not wrong.
    case notice
    /// Something failed and will be retried.
    case warning
    /// Something that needs a look: a save that failed, a move the table refused.
    case error

    public static func < (lhs: PurchaseLogLevel, rhs: PurchaseLogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The lower-case name, for printing.
    public var name: String {
        switch self {
        case .trace: return "trace"
        case .debug: return "debug"
        case .info: return "info"
        case .notice: return "notice"
        case .warning: return "warning"
        case .error: return "error"
        }
    }
}

/// One log line: a level, a message and structured metadata. PurchaseKit never
/// puts receipts, signed payloads or order tokens in either.
public struct LogRecord: Sendable, Hashable {
    /// How severe the line is.
    public var level: PurchaseLogLevel
    /// What happened, in words; never a receipt or a token.
    public var message: String
    /// Named values (order id, status...), already redacted.
    public var metadata: [String: String]
    /// When, on the engine's clock.
    public var date: Date

    /// Creates a log line.
    public init(level: PurchaseLogLevel, message: String, metadata: [String: String] = [:], date: Date) {
        self.level = level
        self.message = message
        self.metadata = metadata
        self.date = date
    }
}

/// Where PurchaseKit's log lines go. Bridge it to `os.Logger` or swift-log in a
/// few lines; see the integration guide.
public protocol PurchaseLogHandler: Sendable {
    /// Lines below this level are not built at all.
    var minimumLevel: PurchaseLogLevel { get }
    /// Receives one line.
    func log(_ record: LogRecord)
}

/// Drops every line.
public struct SilentLogHandler: PurchaseLogHandler {
    /// Creates a handler that drops everything.
    public init() {}
    public var minimumLevel: PurchaseLogLevel { .error }
    public func log(_ record: LogRecord) {}
}

/// Calls a closure for each line at or above a level.
public struct ClosureLogHandler: PurchaseLogHandler {
    public let minimumLevel: PurchaseLogLevel
    private let body: @Sendable (LogRecord) -> Void

    /// Creates a handler that passes each line at `minimumLevel` or above to `body`.
    public init(minimumLevel: PurchaseLogLevel = .info, _ body: @escaping @Sendable (LogRecord) -> Void) {
        self.minimumLevel = minimumLevel
        self.body = body
    }

    public func log(_ record: LogRecord) { body(record) }
}

/// Keeps the lines in memory, for tests and diagnostics.
public final class RecordingLogHandler: PurchaseLogHandler {
    public let minimumLevel: PurchaseLogLevel
    private let lines = Locked<[LogRecord]>([])

    /// Creates a handler that keeps every line at `minimumLevel` or above.
    public init(minimumLevel: PurchaseLogLevel = .trace) { self.minimumLevel = minimumLevel }

    public func log(_ record: LogRecord) { lines.withLock { $0.append(record) } }

    /// Every line so far.
    public var records: [LogRecord] { lines.withLock { $0 } }
}

/// Metadata keys whose values are always replaced before a line is logged.
public enum LogRedaction {
    /// Keys treated as secret wherever they appear.
    public static let secretKeys: Set<String> = ["receipt", "orderToken", "token", "signedPayload", "jws", "appAccountToken", "applicationUsername"]

    /// `metadata` with every secret value replaced by `<redacted>`.
    public static func redact(_ metadata: [String: String]) -> [String: String] {
        var copy = metadata
        for key in copy.keys where secretKeys.contains(key) { copy[key] = "<redacted>" }
        return copy
    }
}
