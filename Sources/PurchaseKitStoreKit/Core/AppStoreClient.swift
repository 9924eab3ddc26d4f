import Foundation

/// The adapter's one door to the App Store. `StoreKitClient` is the door to
/// StoreKit 2; it converts everything StoreKit answers into snapshots and
/// decides nothing.
protocol AppStoreClient: Sendable {
    /// `Product.products(for:)`.
    func products(for identifiers: Set<String>) async throws -> [ProductSnapshot]

    /// `AppStore.canMakePayments`.
    func canMakePayments() async -> Bool

    /// Loads the product and calls `purchase(options:)` with the token as
    /// `appAccountToken` and the quantity. Never throws: StoreKit's errors
    /// come back as `.failed`.
    func purchase(productID: String, appAccountToken: UUID, quantity: Int, promotionalOffer: PromotionalOfferOption?) async -> PurchaseOutcome

    /// `Transaction.unfinished`, read to its end.
    func unfinishedTransactions() async -> [TransactionEvent]

    /// Finishes the transaction with this id if `Transaction.unfinished` lists it.
    func finishUnfinishedTransaction(id: UInt64) async

    /// Iterates `Transaction.updates` in a task of its own, awaiting `handle`
    /// for each transaction before taking the next.
    func listenForTransactionUpdates(_ handle: @escaping @Sendable (TransactionEvent) async -> Void) -> Task<Void, Never>

    /// Iterates `PurchaseIntent.intents` where StoreKit has it (iOS 16.4,
    /// macOS 14.4); nil elsewhere.
    func listenForPurchaseIntents(_ handle: @escaping @Sendable (PromotedPurchase) async -> Void) -> Task<Void, Never>?

    /// `AppStore.sync()`.
    func sync() async throws

    /// `Transaction.currentEntitlements`, read to its end.
    func currentEntitlements() async -> [TransactionSnapshot]

    /// `Transaction.all`, read to its end.
    func allTransactions() async -> [TransactionSnapshot]

    /// The status of the subscription that began with `originalTransactionID`
    /// (`Product.SubscriptionInfo.status(for:)` of its group; the group is
    /// looked up in `Transaction.all` when not given). Nil when StoreKit
    /// knows no such subscription.
    func subscriptionStatus(originalTransactionID: UInt64, groupID: String?) async throws -> RenewalSnapshot?

    /// `Product.SubscriptionInfo.isEligibleForIntroOffer(for:)`.
    func isEligibleForIntroOffer(groupID: String) async -> Bool
}

/// A signed promotional offer, as StoreKit's `.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`
/// purchase option takes it: the library's `SignedOffer`, in a type this
/// side of the adapter can name without importing PurchaseKit.
struct PromotionalOfferOption: Sendable, Hashable {
    var offerID: String
    var keyID: String
    var nonce: UUID
    var signature: Data
    var timestamp: Int
}
