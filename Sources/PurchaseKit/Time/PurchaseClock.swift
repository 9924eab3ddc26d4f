import Foundation

/// The source of time for everything in PurchaseKit: timestamps, timeouts,
/// retry backoff, latency and renewals. Inject ``SystemClock`` in an app and a
/// manual clock in tests, so that a year of renewals runs in milliseconds.
///
/// (Not Swift's `Clock`: that needs iOS 16 / macOS 13, and PurchaseKit
/// supports iOS 15 / macOS 12.)
public protocol PurchaseClock: Sendable {
    /// The current time.
    var now: Date { get }

    /// Suspends until `deadline`, returning at once when it has passed.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(until deadline: Date) async throws
}

extension PurchaseClock {
    /// Suspends for `interval` seconds on this clock.
    public func sleep(for interval: TimeInterval) async throws {
        try await sleep(until: now.addingTimeInterval(interval))
    }
}

/// The wall clock: `Date()` and `Task.sleep`.
public struct SystemClock: PurchaseClock {
    /// Creates the system clock.
    public init() {}

    public var now: Date { Date() }

    public func sleep(until deadline: Date) async throws {
        let interval = deadline.timeIntervalSinceNow
        if interval > 0 {
            try await Task.sleep(nanoseconds: UInt64(min(interval, 1e9) * 1e9))
        } else {
            try Task.checkCancellation()
        }
    }
}

extension PurchaseClock where Self == SystemClock {
    /// The wall clock.
    public static var system: SystemClock { SystemClock() }
}
