import Foundation

/// Where an auto-renewable subscription of the account stands.
public enum SubscriptionState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Paid and running.
    case subscribed
    /// A renewal failed to bill; access continues while the store retries.
    case inGracePeriod
    /// A renewal failed to bill; no access while the store retries.
    case inBillingRetryPeriod
    /// Ended: cancelled and run out, or billing retry gave up.
    case expired
    /// Refunded; ended at once.
    case revoked

    /// Whether the subscriber keeps access in this state.
    public var grantsAccess: Bool { self == .subscribed || self == .inGracePeriod }
}

/// A snapshot of one subscription of the account.
public struct SubscriptionSnapshot: Sendable, Hashable {
    /// The subscription's product.
    public var productID: String
    /// Where it stands.
    public var state: SubscriptionState
    /// The first transaction's id, shared by every renewal.
    public var originalTransactionID: String
    /// The latest transaction's id.
    public var latestTransactionID: String
    /// When the current (or last) paid period ends.
    public var expirationDate: Date
    /// Whether it renews at `expirationDate` (false once cancelled).
    public var willAutoRenew: Bool
    /// When the grace period or billing retry ends, in those states.
    public var retryEndsAt: Date?
    /// The product that replaces this one at `expirationDate` (a downgrade or
    /// a crossgrade to another duration), if one is scheduled.
    public var scheduledProductID: String?
    /// Whether an upgrade (or a crossgrade taking effect at once) ended it.
    public var wasUpgraded: Bool
}

/// The store's record of one subscription of the account.
struct SubscriptionRecord: Sendable, Codable {
    var productID: String
    var originalID: String
    var userID: String
    var orderToken: String?
    var latestTransactionID: String
    var expirationDate: Date
    var willAutoRenew: Bool
    var state: SubscriptionState
    /// When the grace period or the billing retry period ends.
    var stateEndsAt: Date?
    /// A change of product within the group, due at `expirationDate`.
    var scheduledChange: ScheduledChange?
    /// An upgrade or an immediate crossgrade ended it (absent in old files).
    var wasUpgraded: Bool?
    /// When the current run of regular periods began, and how many of them
    /// were paid since (both absent in old files: each period then counts from
    /// the end of the one before). Renewals fall a whole number of periods
    /// after it, so that a subscription begun on the 31st renews on the last
    /// day of shorter months and on the 31st again after them.
    var cycleStart: Date?
    var cyclePeriods: Int?

    var status: SubscriptionSnapshot {
        SubscriptionSnapshot(productID: productID, state: state, originalTransactionID: originalID,
                           latestTransactionID: latestTransactionID, expirationDate: expirationDate,
                           willAutoRenew: willAutoRenew, retryEndsAt: stateEndsAt,
                           scheduledProductID: scheduledChange?.productID, wasUpgraded: wasUpgraded ?? false)
    }
}
