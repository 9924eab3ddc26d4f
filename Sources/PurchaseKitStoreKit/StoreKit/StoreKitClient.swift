// The only code of PurchaseKitStoreKit that touches StoreKit. Where StoreKit
// is absent (Linux), the same code compiles against StoreKitInterface, a
// transcription of the part of StoreKit 2 it calls, so that a call that does
// not exist or has the wrong shape fails the build there too.
//
// This file does not import PurchaseKit: StoreKit and PurchaseKit both
// declare `Product`, `VerificationResult` and subscription types, and here
// every such name means StoreKit's.
#if canImport(StoreKit)
import StoreKit
#else
import StoreKitInterface
#endif
import Foundation

/// Calls StoreKit 2 and turns what it answers into snapshots. Decides nothing.
struct StoreKitClient: AppStoreClient {
    func products(for identifiers: Set<String>) async throws -> [ProductSnapshot] {
        try await Product.products(for: identifiers).map(ProductSnapshot.init)
    }

    func canMakePayments() async -> Bool {
        AppStore.canMakePayments
    }

    func purchase(productID: String, appAccountToken: UUID, quantity: Int, promotionalOffer: PromotionalOfferOption?) async -> PurchaseOutcome {
        let product: Product
        do {
            guard let found = try await Product.products(for: [productID]).first(where: { $0.id == productID }) else {
                return .failed(.productUnavailable)
            }
            product = found
        } catch {
            return .failed(StoreKitFailure(error))
        }
        return await Self.purchase(product, appAccountToken: appAccountToken, quantity: quantity, promotionalOffer: promotionalOffer)
    }

    /// `purchase(options:)`, which shows the App Store's sheet on the main actor.
    static func purchase(_ product: Product, appAccountToken: UUID?, quantity: Int,
                         promotionalOffer: PromotionalOfferOption? = nil) async -> PurchaseOutcome {
        #if os(visionOS)
        // visionOS only has `purchase(confirmIn:options:)`, which needs the app's scene.
        return .failed(.unsupported)
        #else
        var options: Set<Product.PurchaseOption> = []
        if let appAccountToken { options.insert(.appAccountToken(appAccountToken)) }
        // StoreKit accepts a quantity for consumables and non-renewing subscriptions only; 1 is its default.
        if quantity != 1 { options.insert(.quantity(quantity)) }
        if let offer = promotionalOffer {
            options.insert(.promotionalOffer(offerID: offer.offerID, keyID: offer.keyID, nonce: offer.nonce,
                                             signature: offer.signature, timestamp: offer.timestamp))
        }
        do {
            let result = try await product.purchase(options: options)
            // Not a `switch`: `PurchaseResult` may gain cases, and an `@unknown
            // default` would be flagged as unreachable where it is compiled from source.
            if case .success(let verification) = result { return .purchased(TransactionEvent(verification)) }
            if case .pending = result { return .pending }
            if case .userCancelled = result { return .userCancelled }
            return .failed(.unknown)
        } catch {
            return .failed(StoreKitFailure(error))
        }
        #endif
    }

    func unfinishedTransactions() async -> [TransactionEvent] {
        var events: [TransactionEvent] = []
        for await result in Transaction.unfinished {
            events.append(TransactionEvent(result))
        }
        return events
    }

    func finishUnfinishedTransaction(id: UInt64) async {
        for await result in Transaction.unfinished {
            let transaction = result.unsafePayloadValue
            if transaction.id == id {
                await transaction.finish()
                return
            }
        }
    }

    func listenForTransactionUpdates(_ handle: @escaping @Sendable (TransactionEvent) async -> Void) -> Task<Void, Never> {
        Task {
            for await result in Transaction.updates {
                await handle(TransactionEvent(result))
            }
        }
    }

    func listenForPurchaseIntents(_ handle: @escaping @Sendable (PromotedPurchase) async -> Void) -> Task<Void, Never>? {
        #if !canImport(StoreKit) || os(iOS) || os(macOS)
        if #available(iOS 16.4, macOS 14.4, *) {
            return Task {
                for await intent in PurchaseIntent.intents {
                    let product = intent.product
                    await handle(PromotedPurchase(product: ProductSnapshot(product), buy: {
                        await Self.purchase(product, appAccountToken: nil, quantity: 1)
                    }))
                }
            }
        }
        #endif
        return nil
    }

    func sync() async throws {
        try await AppStore.sync()
    }

    func currentEntitlements() async -> [TransactionSnapshot] {
        var snapshots: [TransactionSnapshot] = []
        for await result in Transaction.currentEntitlements {
            snapshots.append(TransactionEvent(result).snapshot)
        }
        return snapshots
    }

    func allTransactions() async -> [TransactionSnapshot] {
        var snapshots: [TransactionSnapshot] = []
        for await result in Transaction.all {
            snapshots.append(TransactionEvent(result).snapshot)
        }
        return snapshots
    }

    func isEligibleForIntroOffer(groupID: String) async -> Bool {
        await Product.SubscriptionInfo.isEligibleForIntroOffer(for: groupID)
    }

    func subscriptionStatus(originalTransactionID: UInt64, groupID: String?) async throws -> RenewalSnapshot? {
        var group = groupID
        if group == nil {
            for await result in Transaction.all {
                if case .verified(let transaction) = result, transaction.originalID == originalTransactionID {
                    group = transaction.subscriptionGroupID
                    break
                }
            }
        }
        guard let group else { return nil }
        for status in try await Product.SubscriptionInfo.status(for: group) {
            // Family Sharing can list several subscriptions of the group: take this one's.
            let transactionOriginal = status.transaction.unsafePayloadValue.originalID
            let renewalOriginal = status.renewalInfo.unsafePayloadValue.originalTransactionID
            if transactionOriginal == originalTransactionID || renewalOriginal == originalTransactionID {
                return RenewalSnapshot(status)
            }
        }
        return nil
    }
}
