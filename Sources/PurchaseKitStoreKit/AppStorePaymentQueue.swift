import Foundation
import PurchaseKit

/// The App Store, as a ``PaymentQueue``: PurchaseKit's engine on StoreKit 2.
///
/// ```swift
/// let engine = try PurchaseEngine(configuration: .init(
///     paymentQueue: AppStorePaymentQueue(),
///     receiptVerifier: VerifiedReceiptsOnly(MyServerVerifier()),
///     orderStore: try FileOrderStore(directory: ordersFolder)))
/// try await engine.start()   // at launch, before any UI
/// ```
///
/// - `attach` (the engine's `start()`) delivers `Transaction.unfinished`
///   before it returns, then listens to `Transaction.updates` and, from iOS
///   16.4 and macOS 14.4, to `PurchaseIntent.intents`.
/// - `add` starts `purchase(options:)` — the order token as
///   `appAccountToken`, and the quantity — and returns at once: the sheet may
///   stay open as long as the user likes; its outcome arrives as an update.
/// - Each transaction handed to the engine is kept until the engine finishes
///   it, then `finish()`ed.
/// - A transaction StoreKit verified carries its JWS as the receipt; one it
///   could not verify carries no JWS (see ``AppStoreReceipt``). One it could
///   not verify *for now* (`revokedCertificate`) is not handed over: it stays
///   unfinished in StoreKit until a later launch finds it verified.
public actor AppStorePaymentQueue: PaymentQueue {
    /// How the adapter behaves.
    public struct Configuration: Sendable {
        /// What to do when the user buys a promoted in-app purchase on the App Store.
        public enum PromotedPurchases: Sendable {
            /// Buy it at once; it becomes a `storeInitiated` order of the current user.
            case buy
            /// Ask first (for instance, to wait until onboarding is done); true buys.
            case ask(@Sendable (PurchaseKit.StoreProduct) async -> Bool)
            /// Do not buy.
            case ignore
            /// Hand the intent to the engine's promoted-purchase handler
            /// (`PurchaseEngine.setPromotedPurchaseHandler`), which accepts,
            /// defers or declines it; the engine buys an accepted one as an
            /// ordinary purchase: its order is saved first and its token goes
            /// as `appAccountToken`.
            case engine
        }

        /// Dates the adapter's updates.
        public var clock: any PurchaseClock
        /// What to do with promoted purchases.
        public var promotedPurchases: PromotedPurchases

        public init(clock: any PurchaseClock = SystemClock(), promotedPurchases: PromotedPurchases = .buy) {
            self.clock = clock
            self.promotedPurchases = promotedPurchases
        }
    }

    let client: any AppStoreClient
    private let configuration: Configuration
    private var book = TransactionBook()
    private weak var observer: (any PaymentQueueObserver)?
    private var updatesListener: Task<Void, Never>?
    private var intentsListener: Task<Void, Never>?
    /// Purchase calls whose sheet may still be open, by a key of their own.
    private var purchases: [UUID: Task<Void, Never>] = [:]
    /// Promoted purchases handed to the engine so far (`.engine`), for their ids.
    private var intentsHandedOver = 0

    /// An adapter on StoreKit.
    public init(configuration: Configuration = .init()) {
        self.init(client: StoreKitClient(), configuration: configuration)
    }

    init(client: any AppStoreClient, configuration: Configuration) {
        self.client = client
        self.configuration = configuration
    }

    deinit {
        updatesListener?.cancel()
        intentsListener?.cancel()
    }

    // MARK: PaymentQueue

    public func products(for identifiers: Set<String>) async throws -> ProductsResponse {
        let snapshots: [ProductSnapshot]
        do {
            snapshots = try await client.products(for: identifiers)
        } catch {
            throw PurchaseKitError(.productRequestFailed, "The App Store could not load the products.",
                                   advice: "Check the network and try again.", underlying: error)
        }
        var products: [PurchaseKit.StoreProduct] = []
        var found: Set<String> = []
        for snapshot in snapshots where identifiers.contains(snapshot.id) && !found.contains(snapshot.id) {
            guard let product = StoreKitMapping.product(snapshot) else { continue }
            products.append(product)
            found.insert(snapshot.id)
        }
        return ProductsResponse(products: products, invalidProductIDs: Array(identifiers.subtracting(found)))
    }

    public func canMakePayments() async -> Bool {
        await client.canMakePayments()
    }

    /// Starts the purchase and returns: StoreKit's answer arrives as an update.
    ///
    /// - Throws: ``PurchaseKitError/Code/invalidConfiguration`` when the order
    ///   token is not a UUID, which `appAccountToken` could not carry.
    public func add(_ payment: Payment) async throws {
        guard let token = StoreKitMapping.appAccountToken(forOrderToken: payment.orderToken) else {
            throw PurchaseKitError(.invalidConfiguration, "The order token is not a UUID, so StoreKit cannot carry it as appAccountToken.",
                                   advice: "Nothing was charged. Leave order tokens to the engine, which mints UUIDs.")
        }
        let client = self.client
        let key = UUID()
        purchases[key] = Task { [weak self] in
            let outcome = await client.purchase(productID: payment.productID, appAccountToken: token, quantity: payment.quantity,
                                                promotionalOffer: payment.promotionalOffer.map {
                                                    PromotionalOfferOption(offerID: $0.offerID, keyID: $0.keyID, nonce: $0.nonce,
                                                                           signature: $0.signature, timestamp: $0.timestamp)
                                                })
            await self?.purchaseEnded(key, payment: payment, outcome: outcome)
        }
    }

    public func finish(transactionID: String) async throws {
        // Not a StoreKit id: nothing StoreKit holds.
        guard let id = UInt64(transactionID) else { return }
        if let finish = book.release(id) {
            await finish()
        } else {
            // Handed over by an earlier attach, or never: finish it if StoreKit still holds it.
            await client.finishUnfinishedTransaction(id: id)
        }
    }

    /// `AppStore.sync()` (which may ask the user to sign in), then the
    /// account's current entitlements that StoreKit verified, of the types a
    /// restore brings back (non-consumables and auto-renewable subscriptions).
    public func restoreCompletedTransactions() async throws -> [StoreTransaction] {
        do {
            try await client.sync()
        } catch {
            throw PurchaseKitError(.restoreFailed, "The App Store could not sync this account's purchases.",
                                   advice: "Check the network and that the user signed in, then try again.", underlying: error)
        }
        return await client.currentEntitlements()
            .filter { $0.isVerified && StoreKitMapping.isRestorable($0) }
            .map(StoreKitMapping.storeTransaction)
    }

    public func attach(_ observer: any PaymentQueueObserver) async {
        self.observer = observer
        let unfinished = await client.unfinishedTransactions()
            .filter { !$0.snapshot.verifiesLater }
            .sorted { ($0.snapshot.purchaseDate, $0.snapshot.id) < ($1.snapshot.purchaseDate, $1.snapshot.id) }
        for event in unfinished { book.hold(event) }
        startListening()
        let now = configuration.clock.now
        let updates = unfinished.map { StoreKitMapping.update(for: $0.snapshot, storeInitiated: false, date: now) }
        guard !updates.isEmpty else { return }
        await observer.paymentQueue(didUpdate: updates)
    }

    /// The account's transactions that the App Store revoked and StoreKit verified.
    public func revokedTransactions() async throws -> [StoreTransaction] {
        await client.allTransactions()
            .filter { $0.revocationDate != nil && $0.isVerified }
            .map(StoreKitMapping.storeTransaction)
    }

    public func renewalState(forOriginalTransactionID originalTransactionID: String) async -> SubscriptionRenewalState? {
        guard let id = UInt64(originalTransactionID),
              let status = try? await client.subscriptionStatus(originalTransactionID: id, groupID: book.groupID(ofOriginal: id))
        else { return nil }
        return StoreKitMapping.renewalState(status)
    }

    // MARK: Listening

    private func startListening() {
        if updatesListener == nil {
            updatesListener = client.listenForTransactionUpdates { [weak self] event in
                await self?.received(event)
            }
        }
        if intentsListener == nil {
            intentsListener = client.listenForPurchaseIntents { [weak self] purchase in
                await self?.promoted(purchase)
            }
        }
    }

    private func received(_ event: TransactionEvent) async {
        guard let storeInitiated = book.receive(event) else { return }
        await deliver([StoreKitMapping.update(for: event.snapshot, storeInitiated: storeInitiated, date: configuration.clock.now)])
    }

    private func purchaseEnded(_ key: UUID, payment: Payment, outcome: PurchaseOutcome) async {
        purchases[key] = nil
        if case .purchased(let event) = outcome {
            // Charged, but not verifiable yet: the order waits as for a sheet
            // left open, and its token finds it when StoreKit hands the
            // transaction over verified.
            if event.snapshot.verifiesLater { return }
            book.hold(event)
        }
        await deliver([StoreKitMapping.update(answering: payment, with: outcome, date: configuration.clock.now)])
    }

    private func promoted(_ purchase: PromotedPurchase) async {
        switch configuration.promotedPurchases {
        case .ignore:
            return
        case .buy:
            break
        case .ask(let shouldBuy):
            guard let product = StoreKitMapping.product(purchase.product), await shouldBuy(product) else { return }
        case .engine:
            // Nothing is bought here: the engine decides, and buys through `add`.
            intentsHandedOver += 1
            let intent = PromotedPurchaseIntent(id: "intent-\(intentsHandedOver)", productID: purchase.product.id,
                                                date: configuration.clock.now)
            await observer?.paymentQueue(didReceive: intent)
            return
        }
        let outcome = await purchase.buy()
        switch outcome {
        case .purchased(let event):
            if event.snapshot.verifiesLater { return }
            book.hold(event)
            await deliver([StoreKitMapping.update(for: event.snapshot, storeInitiated: true, date: configuration.clock.now)])
        case .pending:
            book.promotedPurchaseWentPending(purchase.product.id)
        case .userCancelled, .failed:
            // No order waits for it: nothing to tell the engine.
            break
        }
    }

    /// Hands updates to the observer. Without one (the engine is gone), the
    /// transactions stay unfinished in StoreKit and come back at the next attach.
    private func deliver(_ updates: [TransactionUpdate]) async {
        guard let observer else { return }
        await observer.paymentQueue(didUpdate: updates)
    }
}
