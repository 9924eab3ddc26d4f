import Foundation

extension PurchaseEngine {
    /// What to do when a purchase is asked for while another payment for the
    /// same user and product is in flight.
    public enum DuplicatePurchasePolicy: Sendable, Hashable {
        /// Throw ``PurchaseKitError/Code/purchaseInProgress`` at once.
        case reject
        /// Wait for the other payment to come to rest, then start this one.
        case wait
    }

    /// When the engine finishes a paid store transaction.
    public enum FinishPolicy: Sendable, Hashable {
        /// After the delivery is recorded (the default, and the safe choice).
        case afterDelivery
        /// Never by itself: the app calls ``PurchaseEngine/finish(orderID:)``
        /// once it has shown the content. Failed, cancelled and rejected
        /// transactions are still finished at once.
        case manual
    }

    /// Everything the engine needs, given once to `init`. No singletons.
    public struct Configuration: Sendable {
        /// The store.
        public var paymentQueue: any PaymentQueue
        /// Makes order ids (usually the app's server).
        public var orderGenerator: any OrderGenerator
        /// Checks receipts and records deliveries (usually the app's server).
        public var receiptVerifier: any ReceiptVerifier
        /// Where orders live; use `JournalOrderStore` in an app.
        public var orderStore: any OrderStore
        /// The source of time.
        public var clock: any PurchaseClock
        /// The delivery retry schedule.
        public var retryPolicy: RetryPolicy
        /// When paid transactions are finished.
        public var finishPolicy: FinishPolicy
        /// Matching rules for transactions whose order token was lost.
        public var reconciler: Reconciler
        /// What a second purchase for the same user and product does.
        public var duplicatePurchasePolicy: DuplicatePurchasePolicy
        /// Payments in flight at once; more calls wait for a slot.
        public var maximumConcurrentPurchases: Int
        /// Loaded orders recovered at once at launch (deliveries, finishes).
        public var maximumConcurrentRecoveries: Int
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
        /// The seed of the retry jitter, to replay a schedule in a test; nil (the
        /// default) draws a fresh one from the system, so that devices do not all
        /// retry at the same moments.
        public var jitterSeed: UInt64?
        /// Where log lines go.
        public var logHandler: any LogHandler
        /// How long each non-renewing subscription lasts, by product id. The App
        /// Store does not time non-renewing subscriptions; the app does. A product
        /// missing here lasts the period the store's catalog gives it
        /// (``Product/subscription``), when the engine has loaded the catalog;
        /// one with neither never expires. Set it so that expiries are known
        /// offline, at launch (see ``NonRenewingSubscription``).
        public var nonRenewingDurations: [String: SubscriptionPeriod] = [:]
        /// How consumables add to balances, by product id: which balance and how
        /// many units per unit bought (see ``ConsumableCredit``). A product
        /// missing here adds 1 unit per unit bought to the balance named by its
        /// product id. Balances and spends are keyed by balance key.
        public var consumableCredits: [String: ConsumableCredit] = [:]
        /// Where the engine's own tasks start; the fault simulation replaces it.
        package var taskStarter: any TaskStarter = DefaultTaskStarter()
        /// Order tokens come from the system's cryptographic random source;
        /// only a simulation, which must replay, sets a seed.
        package var orderTokenSeed: UInt64?

        /// Creates a configuration: the plug-ins, then policies and limits (every one has a default).
        public init(
            paymentQueue: any PaymentQueue,
            receiptVerifier: any ReceiptVerifier,
            orderStore: any OrderStore = InMemoryOrderStore(),
            orderGenerator: any OrderGenerator = UUIDOrderGenerator(),
            clock: any PurchaseClock = SystemClock(),
            retryPolicy: RetryPolicy = .default,
            finishPolicy: FinishPolicy = .afterDelivery,
            reconciler: Reconciler = Reconciler(),
            duplicatePurchasePolicy: DuplicatePurchasePolicy = .reject,
            maximumConcurrentPurchases: Int = 8,
            maximumConcurrentRecoveries: Int = 8,
            storeTimeout: TimeInterval? = 600,
            verificationTimeout: TimeInterval? = 60,
            launchTimeout: TimeInterval? = 30,
            paymentExpiry: TimeInterval? = 24 * 3600,
            jitterSeed: UInt64? = nil,
            logHandler: any LogHandler = SilentLogHandler()
        ) {
            self.paymentQueue = paymentQueue
            self.receiptVerifier = receiptVerifier
            self.orderStore = orderStore
            self.orderGenerator = orderGenerator
            self.clock = clock
            self.retryPolicy = retryPolicy
            self.finishPolicy = finishPolicy
            self.reconciler = reconciler
            self.duplicatePurchasePolicy = duplicatePurchasePolicy
            self.maximumConcurrentPurchases = maximumConcurrentPurchases
            self.maximumConcurrentRecoveries = maximumConcurrentRecoveries
            self.storeTimeout = storeTimeout
            self.verificationTimeout = verificationTimeout
            self.launchTimeout = launchTimeout
            self.paymentExpiry = paymentExpiry
            self.jitterSeed = jitterSeed
            self.logHandler = logHandler
        }

        /// Checks the values.
        ///
        /// - Throws: ``PurchaseKitError/Code/invalidConfiguration`` naming the field.
        public func validate() throws(PurchaseKitError) {
            try retryPolicy.validate()
            func bad(_ key: String, _ what: String) -> PurchaseKitError {
                PurchaseKitError(.invalidConfiguration, "The engine configuration's \(key) \(what).",
                                 advice: "Fix the value passed to PurchaseEngine.init.", keyPath: key)
            }
            guard maximumConcurrentPurchases >= 1 else { throw bad("maximumConcurrentPurchases", "must be at least 1") }
            guard maximumConcurrentRecoveries >= 1 else { throw bad("maximumConcurrentRecoveries", "must be at least 1") }
            for (productID, credit) in consumableCredits.sorted(by: { $0.key < $1.key }) where credit.units < 1 || credit.balanceKey.isEmpty {
                throw bad("consumableCredits[\(productID)]", "needs a balance key and at least 1 unit")
            }
            if let storeTimeout, !(storeTimeout > 0) { throw bad("storeTimeout", "must be positive") }
            if let verificationTimeout, !(verificationTimeout > 0) { throw bad("verificationTimeout", "must be positive") }
            if let launchTimeout, !(launchTimeout > 0) { throw bad("launchTimeout", "must be positive") }
            if let paymentExpiry, !(paymentExpiry > 0) { throw bad("paymentExpiry", "must be positive") }
            if let paymentExpiry, let storeTimeout, paymentExpiry < storeTimeout {
                throw bad("paymentExpiry", "must not be shorter than storeTimeout")
            }
        }
    }
}
