import Foundation

/// How a payment queue sees a subscription's renewal, when it can tell.
public enum SubscriptionRenewalState: Sendable, Hashable {
    /// Active; it renews (or not) at the end of the period.
    case active(willRenew: Bool)
    /// A renewal failed and the store keeps retrying; access continues until `until`.
    case inGracePeriod(until: Date)
    /// A renewal failed and the store keeps retrying; no access.
    case inBillingRetry
    /// Ended.
    case expired
}
