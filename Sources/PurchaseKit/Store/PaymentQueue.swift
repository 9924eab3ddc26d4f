/// The products a request asked for: those the store sells, and the
/// identifiers it does not know.
public struct ProductsResponse: Sendable, Hashable {
    /// The valid products, sorted by id.
    public var products: [StoreProduct]
    /// The identifiers the store does not know, sorted.
    public var invalidProductIDs: [String]

    /// Creates a response: the products found, and the identifiers the store does not sell.
    public init(products: [StoreProduct], invalidProductIDs: [String]) {
        self.products = products.sorted { $0.id < $1.id }
        self.invalidProductIDs = invalidProductIDs.sorted()
    }
}

/// Receives the store's transaction updates. The engine attaches one of its own.
///
/// Updates are delivered in batches and awaited: when the call returns, the
/// observer has taken responsibility for them (persisted or queued them).
public protocol PaymentQueueObserver: AnyObject, Sendable {
    /// The store reports updates.
    func paymentQueue(didUpdate updates: [TransactionUpdate]) async

    /// The store asks the app whether to make a purchase the user started on
    /// the store (see ``PromotedPurchaseIntent``; the default ignores it).
    func paymentQueue(didReceive intent: PromotedPurchaseIntent) async
}

/// The store, behind a protocol: the App Store in an app, the
/// `SimulatedPaymentQueue` in tests, previews and on Linux.
///
/// Adopters bridging StoreKit: map `Transaction.updates` /
/// `SKPaymentTransactionObserver` to ``PaymentQueueObserver``, and carry the
/// order token as `appAccountToken` (a UUID) or `applicationUsername`.
public protocol PaymentQueue: Sendable {
    /// Loads products. Unknown identifiers come back in `invalidProductIDs`, not as an error.
    ///
    /// - Throws: ``PurchaseKitError`` with ``PurchaseKitError/Code/productRequestFailed``
    ///   or ``PurchaseKitError/Code/storeUnavailable`` when the store cannot answer.
    func products(for identifiers: Set<String>) async throws -> ProductsResponse

    /// Whether this device and account may make payments at all.
    func canMakePayments() async -> Bool

    /// Hands a payment to the store. Its outcome arrives later as updates to the observer.
    ///
    /// - Throws: ``PurchaseKitError`` when the store would not even take the payment.
    func add(_ payment: Payment) async throws

    /// Tells the store that the app is done with a transaction — paid,
    /// refunded, or (with the update's `paymentID`) failed or cancelled. Until
    /// then the store replays it to every newly attached observer. The engine
    /// finishes every one: a paid one only after its delivery is saved, the
    /// others once the order's outcome is saved. Finishing twice does nothing.
    func finish(transactionID: String) async throws

    /// Asks the store for the account's restorable transactions
    /// (non-consumables and subscriptions that have not expired).
    func restoreCompletedTransactions() async throws -> [StoreTransaction]

    /// Attaches the observer (replacing any earlier one) and, before returning,
    /// delivers to it every transaction that is still unfinished, including
    /// those a killed process left behind.
    func attach(_ observer: any PaymentQueueObserver) async

    /// Every transaction of the account that the store has revoked (refunds,
    /// Family Sharing removals), whether or not its `.revoked` update ever
    /// reached an observer: the store announces a revocation once, and an
    /// app killed before it saved it must still learn of it. The engine asks
    /// at launch and at retry triggers.
    ///
    /// - Throws: ``PurchaseKitError`` when the store cannot answer now; the
    ///   engine asks again at the next trigger.
    func revokedTransactions() async throws -> [StoreTransaction]

    /// How the store sees the renewal of a subscription (see the default in the extension).
    func renewalState(forOriginalTransactionID originalTransactionID: String) async -> SubscriptionRenewalState?

    /// Asks the store to refund a transaction (StoreKit's refund sheet). The
    /// store decides later; an accepted refund arrives as a `.revoked` update.
    /// The default throws ``PurchaseKitError/Code/refundUnsupported``.
    ///
    /// - Throws: ``PurchaseKitError``: `refundUnsupported`, `orderNotFound`
    ///   (no such transaction), `refundRequestDuplicate`, `refundRequestFailed`.
    func requestRefund(transactionID: String) async throws -> RefundRequestStatus

    /// Whether the store account may still have an introductory offer in the
    /// subscription group: not when it ever subscribed in the group or took
    /// an offer there. Nil when the store cannot tell (the default).
    func isEligibleForIntroOffer(groupID: String) async -> Bool?
}

extension PaymentQueue {
    /// How the store sees the renewal of the subscription that began with
    /// `originalTransactionID`: grace period and billing retry are known only
    /// to the store. The default knows nothing and answers nil.
    public func renewalState(forOriginalTransactionID originalTransactionID: String) async -> SubscriptionRenewalState? {
        nil
    }
}
