import Foundation

/// A value guarded by a lock, for the few places where an actor would force
/// callers to `await` (log handlers, the manual clock's `now`).
///
/// `Synchronization.Mutex` would do, but needs iOS 18 / macOS 15.
/// `Value` must be `Sendable`: whatever a caller takes out of the lock may
/// then cross threads, so only sendable state may be kept here.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // Safe: `value` is only touched inside `withLock`, under `lock`, and is
    // itself `Sendable`, so nothing read out of it is shared unsafely.
    private let lock = NSLock()
    private var value: Value

    /// Creates a lock around `value`.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
