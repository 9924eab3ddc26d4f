import Foundation

/// A value set by a benchmark's setup and read by its iterations.
///
/// `@unchecked Sendable` is safe: every access takes the lock, and the value
/// itself is `Sendable`.
final class Shared<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    init() {}

    /// The value; stops the benchmark process when setup did not set it.
    var value: Value {
        get {
            lock.lock()
            defer { lock.unlock() }
            guard let stored else { fatalError("A benchmark ran before its setup set its state.") }
            return stored
        }
        set {
            lock.lock()
            stored = newValue
            lock.unlock()
        }
    }

    /// Forgets the value (teardown).
    func clear() {
        lock.lock()
        stored = nil
        lock.unlock()
    }
}

/// Why a benchmark could not run as designed; reported through `benchmark.error`.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `100000` as `100,000`, whatever the locale, for benchmark names.
func grouped(_ number: Int) -> String {
    var digits = Array(String(number))
    var index = digits.count - 3
    while index > 0 {
        digits.insert(",", at: index)
        index -= 3
    }
    return String(digits)
}
