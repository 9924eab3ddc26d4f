import Foundation
import PurchaseKit

/// A payment queue that behaves like the App Store, bad days included, for
/// tests, previews, the example executable and Linux CI.
///
/// It models one store account (Apple ID) on one device. Updates are delivered
/// by awaiting the observer, so a test that awaits ``add(_:)`` sees every
/// update the payment caused at once. Without an observer, updates wait:
/// unfinished transactions (and revocations) are replayed by ``attach(_:)``,
/// other updates are delivered there first.
///
/// Everything random draws from a generator seeded at `init`, and every delay
/// sleeps on the injected clock, so the same seed and the same calls give the
/// same events.
public actor SimulatedPaymentQueue: PaymentQueue {
    /// A default actor's executor, unless a fault simulation shares its run's.
    private nonisolated let actorExecutor: ActorExecutor
    /// The serial executor the store runs on: a default actor's, unless a
    /// fault simulation shares its run's.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { actorExecutor.executor }
    let clock: any PurchaseClock
    /// The environment transactions are signed for.
    public let environment: StoreEnvironment
    let signer: ReceiptSigner
    let seed: UInt64
    var random: SeededRandomNumberGenerator

    var catalog: [String: StoreProduct]
    var settings: StoreKitConfiguration.Settings

    // Behaviour switches (not saved by `saveState`: they belong to a test's script).
    var defaultBehavior: PurchaseBehavior
    var productBehaviors: [String: PurchaseBehavior] = [:]
    var scripts: [PurchaseScript] = []
    var defaultFaults = DeliveryFaults.none
    var productFaults: [String: DeliveryFaults] = [:]
    var holdsAllUpdates = false
    var heldUpdates: [TransactionUpdate] = []
    var paymentsAllowed = true
    var productRequestsFail: Bool
    var removedFromSale: Set<String> = []
    var latency: TimeInterval = 0
    var restoreBehavior = RestoreBehavior.succeeds
    /// Promoted purchases the user started while no observer was attached, and how many were started.
    var undeliveredIntents: [PromotedPurchaseIntent] = []
    var intentsStarted = 0
    /// Payments handed to ``add(_:)`` so far, and who waits for a count of them.
    var paymentsReceived = 0
    var paymentWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    // The account's story (saved by `saveState`).
    var records: [TransactionRecord] = []
    var recordIndex: [String: Int] = [:]
    var subscriptions: [String: SubscriptionRecord] = [:]
    var pending: [PendingPurchase] = []
    var billingIssues: Set<String> = []
    var nextTransactionNumber: UInt64 = 2_000_000_000
    var nextPendingNumber: UInt64 = 0
    /// Failed and cancelled payments, kept until the app finishes them.
    var unpaid: [UnpaidPaymentRecord] = []
    var nextUnpaidNumber: UInt64 = 0
    /// Refund requests and their coming decisions.
    var refundRequests: [RefundRequestRecord] = []
    /// How the next refund request goes (a test's script: not saved).
    var refundBehavior = RefundRequestBehavior.approve(afterDays: 2)
    /// Offer codes not redeemed yet, by code.
    var offerCodes: [String: OfferCodeRecord] = [:]
    /// Nonces of promotional offers already used: each signs one purchase.
    var usedOfferNonces: Set<UUID> = []

    var observer = WeakObserver()
    /// Updates without a transaction, produced while no observer was attached.
    var undelivered: [TransactionUpdate] = []

    /// Creates a store selling `products`.
    ///
    /// - Parameters:
    ///   - products: The catalog.
    ///   - settings: Defaults as a StoreKit configuration would set them
    ///     (Ask to Buy, failing transactions, time rate, billing issues).
    ///   - clock: The clock for timestamps, latency and renewals.
    ///   - seed: The seed of every random choice.
    ///   - environment: The environment receipts are made for; sandbox by default.
    ///   - signer: Signs receipts; give the same signer to the ``SimulatedReceiptServer``.
    public init(
        products: [StoreProduct],
        settings: StoreKitConfiguration.Settings = .init(),
        clock: any PurchaseClock,
        seed: UInt64 = 0,
        environment: StoreEnvironment = .sandbox,
        signer: ReceiptSigner = ReceiptSigner()
    ) {
        self.init(products: products, settings: settings, clock: clock, seed: seed, environment: environment,
                  signer: signer, restoring: nil)
    }

    /// The one designated initializer: a fresh store, or one continuing a saved state.
    init(products: [StoreProduct], settings: StoreKitConfiguration.Settings, clock: any PurchaseClock, seed: UInt64,
         environment: StoreEnvironment, signer: ReceiptSigner, restoring state: SimulatedStoreState?,
         executor: UnownedSerialExecutor? = nil) {
        self.actorExecutor = ActorExecutor(executor)
        self.clock = clock
        self.environment = environment
        self.signer = signer
        self.seed = seed
        self.random = SeededRandomNumberGenerator(seed: seed)
        self.catalog = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        self.settings = settings
        if settings.failTransactionsEnabled || settings.isErrorEnabled("Purchase") {
            self.defaultBehavior = .fail(.unknown)
        } else if settings.askToBuyEnabled {
            self.defaultBehavior = .askToBuy
        } else {
            self.defaultBehavior = .success
        }
        self.productRequestsFail = settings.isErrorEnabled("Load Products")
        if settings.billingIssuesEnabled {
            self.billingIssues = Set(products.filter { $0.type == .autoRenewable }.map(\.id))
        }
        if let state {
            records = state.records
            recordIndex = Dictionary(state.records.enumerated().map { ($1.transaction.id, $0) },
                                     uniquingKeysWith: { first, _ in first })
            subscriptions = Dictionary(state.subscriptions.map { ($0.productID, $0) },
                                       uniquingKeysWith: { _, last in last })
            pending = state.pending
            billingIssues = Set(state.billingIssues)
            nextTransactionNumber = state.nextTransactionNumber
            nextPendingNumber = state.nextPendingNumber
            paymentsAllowed = state.paymentsAllowed
            unpaid = state.unpaid ?? []
            nextUnpaidNumber = state.nextUnpaidNumber ?? 0
            refundRequests = state.refundRequests ?? []
            offerCodes = Dictionary((state.offerCodes ?? []).map { ($0.code, $0) }, uniquingKeysWith: { _, last in last })
            usedOfferNonces = Set(state.usedOfferNonces ?? [])
        }
    }

    /// Creates a store selling a StoreKit configuration's products, with its settings.
    public init(
        configuration: StoreKitConfiguration,
        clock: any PurchaseClock,
        seed: UInt64 = 0,
        environment: StoreEnvironment = .sandbox,
        signer: ReceiptSigner = ReceiptSigner()
    ) {
        self.init(products: configuration.products, settings: configuration.settings, clock: clock,
                  seed: seed, environment: environment, signer: signer)
    }

    // MARK: PaymentQueue

    /// Returns the known products and, separately, the unknown identifiers.
    ///
    /// - Throws: ``PurchaseKitError/Code/productRequestFailed`` when product
    ///   requests are set to fail (``setProductRequestsFail(_:)`` or the
    ///   configuration's `Load Products` error).
    public func products(for identifiers: Set<String>) async throws -> ProductsResponse {
        try await waitLatency()
        if productRequestsFail {
            throw PurchaseKitError(.productRequestFailed, "The simulated store failed the product request.",
                                   advice: "Try again later; the failure was switched on for this test.")
        }
        let known = identifiers.compactMap { isOnSale($0) ? catalog[$0] : nil }
        let unknown = identifiers.filter { !isOnSale($0) }
        return ProductsResponse(products: known, invalidProductIDs: Array(unknown))
    }

    public func canMakePayments() async -> Bool {
        try? await waitLatency()
        return paymentsAllowed
    }

    /// Attaches `observer` (held weakly, replacing any earlier one) and delivers
    /// to it, before returning: updates that found no observer, every unfinished
    /// transaction (`.purchased`, or `.revoked` when refunded), revocations
    /// of finished transactions it has not seen, then the promoted purchases
    /// started while no observer was attached.
    public func attach(_ observer: any PaymentQueueObserver) async {
        try? await waitLatency()
        self.observer = WeakObserver(value: observer)
        var batch = undelivered
        undelivered = []
        for record in records where !record.isFinished {
            batch.append(update(record.transaction.isRevoked ? .revoked : .purchased, for: record.transaction))
        }
        for record in records where record.isFinished && record.transaction.isRevoked && !record.revocationSeen {
            batch.append(update(.revoked, for: record.transaction))
        }
        let waiting = Set(batch.compactMap(\.paymentID))
        for record in unpaid where !record.isFinished && !waiting.contains(record.id) {
            batch.append(update(for: record))
        }
        if !batch.isEmpty {
            markSeen(batch)
            await observer.paymentQueue(didUpdate: batch)
        }
        await deliverWaitingIntents(to: observer)
    }

    /// Marks a transaction finished; it is no longer replayed on attach.
    /// Finishing an unknown or already finished transaction does nothing, as
    /// with StoreKit: the app may finish again after a crash.
    public func finish(transactionID: String) async throws {
        try await waitLatency()
        if let index = recordIndex[transactionID] {
            records[index].isFinished = true
        } else if let index = unpaid.firstIndex(where: { $0.id == transactionID }) {
            unpaid[index].isFinished = true
        }
    }

    /// Every transaction the store revoked, refunded ones included, oldest first.
    public func revokedTransactions() async throws -> [StoreTransaction] {
        try await waitLatency()
        return records.map(\.transaction).filter(\.isRevoked)
    }

    // MARK: Queries for tests and tools

    /// The transactions the app has not finished, oldest first.
    public func unfinishedTransactions() -> [StoreTransaction] {
        records.filter { !$0.isFinished }.map(\.transaction)
    }

    /// The ids of failed and cancelled payments the app has not finished.
    public func unfinishedPaymentIDs() -> [String] {
        unpaid.filter { !$0.isFinished }.map(\.id)
    }

    /// Every transaction of the account, oldest first.
    public func allTransactions() -> [StoreTransaction] {
        records.map(\.transaction)
    }

    /// The transaction with this id, as the store now sees it (revocation included).
    public func transaction(id: String) -> StoreTransaction? {
        recordIndex[id].map { records[$0].transaction }
    }

    /// Whether the app finished this transaction.
    public func isFinished(transactionID: String) -> Bool {
        recordIndex[transactionID].map { records[$0].isFinished } ?? false
    }

    /// Every product the store knows, those removed from sale included.
    public func catalogProducts() -> [StoreProduct] {
        catalog.values.sorted { $0.id < $1.id }
    }

    // MARK: Helpers

    /// Whether the store sells `productID` now.
    func isOnSale(_ productID: String) -> Bool {
        catalog[productID] != nil && !removedFromSale.contains(productID)
    }

    /// Sleeps for the configured latency on the injected clock.
    func waitLatency() async throws {
        guard latency > 0 else { return }
        try await clock.sleep(for: latency)
    }

    /// Records a failed or cancelled payment the app must finish, and its update.
    func unpaidUpdate(_ kind: UnpaidPaymentRecord.UnpaidKind, productID: String, orderToken: String?) -> TransactionUpdate {
        nextUnpaidNumber += 1
        let record = UnpaidPaymentRecord(id: "payment-\(nextUnpaidNumber)", kind: kind, productID: productID,
                                         orderToken: orderToken, isFinished: false)
        unpaid.append(record)
        return update(for: record)
    }

    /// The update that reports an unpaid payment.
    func update(for record: UnpaidPaymentRecord) -> TransactionUpdate {
        let kind: TransactionUpdate.Kind
        switch record.kind {
        case .cancelled: kind = .cancelled
        case .failed(let reason): kind = .failed(reason)
        }
        return TransactionUpdate(kind: kind, productID: record.productID, orderToken: record.orderToken,
                                 paymentID: record.id, date: clock.now)
    }

    /// An update about `transaction`, carrying its order token.
    func update(_ kind: TransactionUpdate.Kind, for transaction: StoreTransaction) -> TransactionUpdate {
        TransactionUpdate(kind: kind, productID: transaction.productID, orderToken: transaction.orderToken,
                          transaction: transaction, date: clock.now)
    }
}
