import Foundation

/// Everything an app shows about one user's purchases, in one value:
/// what they own, their subscriptions, their non-renewing subscriptions and
/// their consumable balances.
///
/// ``PurchaseEngine/customerInfo(user:)`` answers it from the order store
/// alone, so it is there at launch without a network; facts only the store
/// knows (will a subscription renew, is it in a grace period) are those the
/// store gave last — in this process, or kept by the order store from an
/// earlier one — and are missing until the store has answered once (see
/// ``SubscriptionGroupStatus/renewalStateAsOf``).
public struct CustomerInfo: Sendable, Hashable {
    /// The user.
    public var userID: String
    /// What the user owns now: non-consumables, subscriptions that grant
    /// access (current, or in a grace period) and non-renewing subscriptions
    /// that have not expired, by product id.
    public var entitlements: [Entitlement]
    /// Every subscription group the user ever subscribed in, where it stands now, by group id.
    public var subscriptions: [String: SubscriptionGroupStatus]
    /// Every non-renewing subscription product the user bought, with its expiry, by product id.
    public var nonRenewingSubscriptions: [String: NonRenewingSubscription]
    /// Units of each consumable balance left, by product id (or by the balance
    /// key ``PurchaseEngine/Configuration/Policies/consumableCredits`` gives it): delivered units (revoked
    /// ones not counted) minus the units spent, zero when that is below zero
    /// (units refunded after they were spent are made up by later purchases).
    public var consumableBalances: [String: Int]

    /// The subscriptions that grant access now (current, or in a grace period), by group id.
    public var activeSubscriptions: [String: SubscriptionGroupStatus] {
        subscriptions.filter { $0.value.status == .subscribed || $0.value.status == .inGracePeriod }
    }

    /// Whether the user owns `productID` now (see ``entitlements``).
    public func isEntitled(to productID: String) -> Bool {
        entitlements.contains { $0.productID == productID }
    }

    /// Creates a value; the engine makes them (``PurchaseEngine/customerInfo(user:)``).
    public init(userID: String, entitlements: [Entitlement], subscriptions: [String: SubscriptionGroupStatus],
                nonRenewingSubscriptions: [String: NonRenewingSubscription], consumableBalances: [String: Int]) {
        self.userID = userID
        self.entitlements = entitlements
        self.subscriptions = subscriptions
        self.nonRenewingSubscriptions = nonRenewingSubscriptions
        self.consumableBalances = consumableBalances
    }
}

/// Where a user's subscription in one group stands, in detail.
public struct SubscriptionGroupStatus: Sendable, Hashable {
    /// The subscription group.
    public var groupID: String
    /// The product of the latest transaction in the group.
    public var productID: String
    /// Where it stands.
    public var status: SubscriptionStatus
    /// When the latest paid period ends (or ended).
    public var expirationDate: Date?
    /// Whether the store will renew it at `expirationDate`: false once the user
    /// cancelled or it ended; true while the store retries a failed renewal;
    /// nil when the store never told (see ``renewalStateAsOf``).
    public var willAutoRenew: Bool?
    /// When the grace period ends, while ``status`` is ``SubscriptionStatus/inGracePeriod``.
    public var gracePeriodExpirationDate: Date?
    /// The latest transaction in the group.
    public var transactionID: String
    /// The transaction that began the subscription.
    public var originalTransactionID: String
    /// When the store last told how the subscription renews (the source of
    /// ``willAutoRenew`` and of the grace period and billing retry states): in
    /// this process, or, kept by the order store, when it last told something
    /// new. Nil when it never did; the status then comes from the stored
    /// transaction alone.
    public var renewalStateAsOf: Date?

    /// Creates a value; the engine makes them.
    public init(groupID: String, productID: String, status: SubscriptionStatus, expirationDate: Date?, willAutoRenew: Bool?,
                gracePeriodExpirationDate: Date?, transactionID: String, originalTransactionID: String, renewalStateAsOf: Date?) {
        self.groupID = groupID
        self.productID = productID
        self.status = status
        self.expirationDate = expirationDate
        self.willAutoRenew = willAutoRenew
        self.gracePeriodExpirationDate = gracePeriodExpirationDate
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.renewalStateAsOf = renewalStateAsOf
    }
}

/// A non-renewing subscription the user bought, and when it runs out.
///
/// The App Store does not time non-renewing subscriptions: the app does. Its
/// length is ``PurchaseEngine/Configuration/Policies/nonRenewingDurations`` for the
/// product, else the period the store's catalog gives the product
/// (``StoreProduct/subscription``). Purchases of one product run one after the
/// other: each starts when it was bought or when the previous one ends,
/// whichever is later, and lasts the length times its quantity.
public struct NonRenewingSubscription: Sendable, Hashable {
    /// The product.
    public var productID: String
    /// The latest purchase of it.
    public var transactionID: String
    /// When the last purchase runs out; nil when no length is known for the
    /// product (it is then treated as never expiring, and logged).
    public var expirationDate: Date?
    /// Whether it has not run out yet.
    public var isActive: Bool

    /// Creates a value; the engine makes them.
    public init(productID: String, transactionID: String, expirationDate: Date?, isActive: Bool) {
        self.productID = productID
        self.transactionID = transactionID
        self.expirationDate = expirationDate
        self.isActive = isActive
    }
}
