import Foundation

extension PurchaseEngine.Configuration {
    /// What the engine decides: when to retry a delivery, when to finish a
    /// paid transaction, how to match a transaction whose order token was
    /// lost, what a second purchase of the same product does, and how
    /// products add to a customer's state. Every one has a safe default.
    public struct Policies: Sendable {
        /// The delivery retry schedule.
        public var retryPolicy: RetryPolicy
        /// When paid transactions are finished.
        public var finishPolicy: PurchaseEngine.FinishPolicy
        /// Matching rules for transactions whose order token was lost.
        public var reconciler: Reconciler
        /// What a second purchase for the same user and product does.
        public var duplicatePurchasePolicy: PurchaseEngine.DuplicatePurchasePolicy
        /// How long each non-renewing subscription lasts, by product id. The App
        /// Store does not time non-renewing subscriptions; the app does. A product
        /// missing here lasts the period the store's catalog gives it
        /// (``StoreProduct/subscription``), when the engine has loaded the catalog;
        /// one with neither never expires. Set it so that expiries are known
        /// offline, at launch (see ``NonRenewingSubscription``).
        public var nonRenewingDurations: [String: SubscriptionPeriod]
        /// How consumables add to balances, by product id: which balance and how
        /// many units per unit bought (see ``ConsumableCredit``). A product
        /// missing here adds 1 unit per unit bought to the balance named by its
        /// product id. Balances and spends are keyed by balance key.
        public var consumableCredits: [String: ConsumableCredit]

        /// Creates the policies; every one has a default.
        public init(
            retryPolicy: RetryPolicy = .default,
            finishPolicy: PurchaseEngine.FinishPolicy = .afterDelivery,
            reconciler: Reconciler = Reconciler(),
            duplicatePurchasePolicy: PurchaseEngine.DuplicatePurchasePolicy = .reject,
            nonRenewingDurations: [String: SubscriptionPeriod] = [:],
            consumableCredits: [String: ConsumableCredit] = [:]
        ) {
            self.retryPolicy = retryPolicy
            self.finishPolicy = finishPolicy
            self.reconciler = reconciler
            self.duplicatePurchasePolicy = duplicatePurchasePolicy
            self.nonRenewingDurations = nonRenewingDurations
            self.consumableCredits = consumableCredits
        }
    }

    /// How much the engine does at once and how long it waits. Every one has a
    /// default; a nil duration waits as long as it takes.
    public struct Limits: Sendable, Hashable {
        /// Payments in flight at once; more calls wait for a slot.
        public var maximumConcurrentPurchases: Int
        /// Background work on orders run at once: deliveries, finishes and
        /// archive moves, whether launch recovery, a retry trigger, a store
        /// update, a retry timer or a restore started them. They share one
        /// lane; the rest wait their turn, first in, first out, so thousands
        /// of owed deliveries or a burst of renewals do not flood the server.
        public var maximumConcurrentDeliveries: Int
        /// How long a purchase call waits for the store before returning
        /// `.pending(_, .storeTimeout)`; nil waits as long as it takes.
        public var storeTimeout: TimeInterval?
        /// How long one verifier call may take before it counts as "try later".
        public var verificationTimeout: TimeInterval?
        /// How long ``PurchaseEngine/start()`` waits for the store to replay its
        /// unfinished transactions; after that, launch completes without it
        /// and the replay is handled whenever the store answers. Nil waits as
        /// long as it takes.
        public var launchTimeout: TimeInterval?
        /// How long a payment the store never answered stays `purchasing`
        /// before it rests as `failed`. A payment that completes later still
        /// finds its order by token and is delivered. Nil keeps it open for ever.
        public var paymentExpiry: TimeInterval?
        /// How long a payment waiting for approval (Ask to Buy) or for the
        /// user's action at the store (`deferred`) stays open before it rests
        /// as `failed`, counted from the payment's start. The store sends
        /// nothing when an Ask to Buy request expires unanswered (the family
        /// organizer has 24 hours), so without it the order waits for ever.
        /// An answer that comes later still finds its order by token and is
        /// delivered. Nil keeps it open for ever. Not for a subscription,
        /// whose `deferred` payment may be a change scheduled for the renewal
        /// date (see ``OrderStateMachine/expiresWhileDeferred(_:)``).
        public var approvalExpiry: TimeInterval?

        /// Creates the limits; every one has a default.
        public init(
            maximumConcurrentPurchases: Int = 8,
            maximumConcurrentDeliveries: Int = 8,
            storeTimeout: TimeInterval? = 600,
            verificationTimeout: TimeInterval? = 60,
            launchTimeout: TimeInterval? = 30,
            paymentExpiry: TimeInterval? = 24 * 3600,
            approvalExpiry: TimeInterval? = 48 * 3600
        ) {
            self.maximumConcurrentPurchases = maximumConcurrentPurchases
            self.maximumConcurrentDeliveries = maximumConcurrentDeliveries
            self.storeTimeout = storeTimeout
            self.verificationTimeout = verificationTimeout
            self.launchTimeout = launchTimeout
            self.paymentExpiry = paymentExpiry
            self.approvalExpiry = approvalExpiry
        }

        /// The room the engine's tables of orders in flight are made with:
        /// four times the purchases that may be in flight, at most 1,024 (see
        /// ``PurchaseEngine/init(configuration:)``).
        var roomForOrdersInFlight: Int { Swift.min(maximumConcurrentPurchases, 256) * 4 }
    }
}
