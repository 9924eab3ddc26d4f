import Foundation

/// When to try a delivery again after the verifier could not answer.
///
/// Delays grow exponentially from ``initialDelay`` by ``multiplier`` up to
/// ``maximumDelay``, each spread by ±``jitter`` so that a fleet of devices
/// coming back online does not hit the server in the same second. After
/// ``attemptBudget`` attempts the order moves to `needsAttention` and is
/// retried only every ``needsAttentionInterval`` and on the retry triggers
/// (launch, login, network recovery, on demand): never abandoned.
public struct RetryPolicy: Sendable, Hashable {
    /// The delay after the first failed attempt, in seconds.
    public var initialDelay: TimeInterval
    /// The growth factor between attempts.
    public var multiplier: Double
    /// The largest delay, in seconds.
    public var maximumDelay: TimeInterval
    /// The spread of each delay, as a fraction (0.2 means ±20 %).
    public var jitter: Double
    /// Attempts before the order is flagged `needsAttention`.
    public var attemptBudget: Int
    /// How often a `needsAttention` order is still retried automatically; nil for never
    /// (then only the retry triggers pick it up).
    public var needsAttentionInterval: TimeInterval?

    /// Creates a policy; see each property for what it means.
    public init(
        initialDelay: TimeInterval = 2,
        multiplier: Double = 2,
        maximumDelay: TimeInterval = 3600,
        jitter: Double = 0.2,
        attemptBudget: Int = 10,
        needsAttentionInterval: TimeInterval? = 6 * 3600
    ) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.attemptBudget = attemptBudget
        self.needsAttentionInterval = needsAttentionInterval
    }

    /// The defaults: 2 s doubling to 1 h, ±20 %, 10 attempts, then every 6 hours.
    public static let `default` = RetryPolicy()

    /// Checks the values.
    ///
    /// - Throws: ``PurchaseKitError/Code/invalidConfiguration``.
    public func validate() throws(PurchaseKitError) {
        func bad(_ what: String) -> PurchaseKitError {
            PurchaseKitError(.invalidConfiguration, "The retry policy's \(what).",
                             advice: "Fix the RetryPolicy passed in the engine configuration.", keyPath: "retryPolicy")
        }
        guard initialDelay > 0, initialDelay.isFinite else { throw bad("initial delay must be positive") }
        guard multiplier >= 1, multiplier.isFinite else { throw bad("multiplier must be at least 1") }
        guard maximumDelay >= initialDelay, maximumDelay.isFinite else { throw bad("maximum delay must be at least the initial delay") }
        guard (0..<1).contains(jitter) else { throw bad("jitter must be in 0..<1") }
        guard attemptBudget >= 1 else { throw bad("attempt budget must be at least 1") }
        if let interval = needsAttentionInterval, !(interval > 0) { throw bad("needs-attention interval must be positive") }
    }

    /// The delay after `attempt` failed attempts (1-based), before jitter.
    public func baseDelay(afterAttempt attempt: Int) -> TimeInterval {
        let exponent = Double(max(0, attempt - 1))
        return min(maximumDelay, initialDelay * pow(multiplier, min(exponent, 64)))
    }

    /// The delay after `attempt` failed attempts, spread by jitter drawn from `random`.
    public func delay(afterAttempt attempt: Int, using random: inout some RandomNumberGenerator) -> TimeInterval {
        let base = baseDelay(afterAttempt: attempt)
        guard jitter > 0 else { return base }
        return base * Double.random(in: (1 - jitter)...(1 + jitter), using: &random)
    }
}
