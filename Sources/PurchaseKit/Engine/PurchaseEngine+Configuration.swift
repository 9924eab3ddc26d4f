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
    ///
    /// Three parts: the plug-ins (the store, the verifier and the order store
    /// have no default: an order store that forgets paid state at exit must
    /// be chosen, never fallen into), the ``Policies`` that decide what the
    /// engine does, and the ``Limits`` on how much and how long.
    public struct Configuration: Sendable {
        /// The store.
        public var paymentQueue: any PaymentQueue
        /// Checks receipts and records deliveries (usually the app's server).
        public var receiptVerifier: any ReceiptVerifier
        /// Where orders live: `JournalOrderStore` in an app; `InMemoryOrderStore`
        /// only in tests and previews, since it forgets paid state at exit.
        public var orderStore: any OrderStore
        /// Makes order ids (usually the app's server).
        public var orderGenerator: any OrderGenerator
        /// The source of time.
        public var clock: any PurchaseClock
        /// Where log lines go.
        public var logHandler: any PurchaseLogHandler
        /// What the engine does: retries, finishing, matching, duplicates, crediting.
        public var policies: Policies
        /// How much at once and how long to wait.
        public var limits: Limits
        /// The seed of the retry jitter, to replay a schedule in a test; nil (the
        /// default) draws a fresh one from the system, so that devices do not all
        /// retry at the same moments. A test hook: `@_spi(Testing) import PurchaseKit`.
        @_spi(Testing) public var jitterSeed: UInt64?
        /// Where the engine's own tasks start; the fault simulation replaces it.
        package var taskStarter: any TaskStarter = DefaultTaskStarter()
        /// The serial executor the engine runs on; nil (an app) for one of its
        /// own, as any actor has. The fault simulation shares its run's.
        package var executor: UnownedSerialExecutor?
        /// Order tokens come from the system's cryptographic random source;
        /// only a simulation, which must replay, sets a seed.
        package var orderTokenSeed: UInt64?

        /// Creates a configuration: the three plug-ins every app chooses, the
        /// optional ones, then policies and limits (each with safe defaults).
        public init(
            paymentQueue: any PaymentQueue,
            receiptVerifier: any ReceiptVerifier,
            orderStore: any OrderStore,
            orderGenerator: any OrderGenerator = UUIDOrderGenerator(),
            clock: any PurchaseClock = SystemClock(),
            logHandler: any PurchaseLogHandler = SilentLogHandler(),
            policies: Policies = Policies(),
            limits: Limits = Limits()
        ) {
            self.paymentQueue = paymentQueue
            self.receiptVerifier = receiptVerifier
            self.orderStore = orderStore
            self.orderGenerator = orderGenerator
            self.clock = clock
            self.logHandler = logHandler
            self.policies = policies
            self.limits = limits
        }

        /// Checks the values.
        ///
        /// - Throws: ``PurchaseKitError/Code/invalidConfiguration`` naming the field.
        public func validate() throws(PurchaseKitError) {
            try policies.retryPolicy.validate()
            func bad(_ key: String, _ what: String) -> PurchaseKitError {
                PurchaseKitError(.invalidConfiguration, "The engine configuration's \(key) \(what).",
                                 advice: "Fix the value passed to PurchaseEngine.init.", keyPath: key)
            }
            for (productID, credit) in policies.consumableCredits.sorted(by: { $0.key < $1.key })
            where credit.units < 1 || credit.balanceKey.isEmpty {
                throw bad("policies.consumableCredits[\(productID)]", "needs a balance key and at least 1 unit")
            }
            guard limits.maximumConcurrentPurchases >= 1 else {
                throw bad("limits.maximumConcurrentPurchases", "must be at least 1")
            }
            guard limits.maximumConcurrentDeliveries >= 1 else {
                throw bad("limits.maximumConcurrentDeliveries", "must be at least 1")
            }
            let durations: [(String, TimeInterval?)] = [
                ("storeTimeout", limits.storeTimeout), ("verificationTimeout", limits.verificationTimeout),
                ("launchTimeout", limits.launchTimeout), ("paymentExpiry", limits.paymentExpiry),
                ("approvalExpiry", limits.approvalExpiry),
            ]
            for (key, value) in durations {
                if let value, !(value > 0) { throw bad("limits.\(key)", "must be positive") }
            }
            if let paymentExpiry = limits.paymentExpiry, let storeTimeout = limits.storeTimeout, paymentExpiry < storeTimeout {
                throw bad("limits.paymentExpiry", "must not be shorter than storeTimeout")
            }
        }
    }
}
