import Foundation
import PurchaseKit

/// What StoreKit said, in the library's terms. Pure functions of snapshots.
enum StoreKitMapping {
    // MARK: Order tokens

    /// The `appAccountToken` that carries an order token. The engine mints
    /// tokens as lowercase version-4 UUIDs; anything else cannot travel.
    static func appAccountToken(forOrderToken token: String) -> UUID? {
        UUID(uuidString: token)
    }

    /// The order token a transaction's `appAccountToken` carries, in the
    /// engine's lowercase form; nil when the transaction has none.
    static func orderToken(from appAccountToken: UUID?) -> String? {
        appAccountToken.map { $0.uuidString.lowercased() }
    }

    // MARK: Transactions

    static func storeTransaction(_ snapshot: TransactionSnapshot) -> StoreTransaction {
        StoreTransaction(
            id: String(snapshot.id), originalID: String(snapshot.originalID), productID: snapshot.productID,
            purchaseDate: snapshot.purchaseDate, expirationDate: snapshot.expirationDate,
            revocationDate: snapshot.revocationDate, revocationReason: snapshot.revocationReason.map(revocationReason),
            quantity: snapshot.quantity, orderToken: orderToken(from: snapshot.appAccountToken),
            receipt: receipt(for: snapshot.verification).data, environment: environment(snapshot.environment),
            reason: snapshot.reason.map(reason))
    }

    static func reason(_ reason: TransactionSnapshot.Reason) -> TransactionReason {
        switch reason {
        case .purchase: return .purchase
        case .renewal: return .renewal
        }
    }

    static func receipt(for verification: TransactionSnapshot.Verification) -> AppStoreReceipt {
        switch verification {
        case .verified(let jws): return .signedTransaction(jws: jws)
        case .unverified(let reason): return .unverified(reason: reason)
        }
    }

    static func revocationReason(_ revocation: TransactionSnapshot.Revocation) -> RevocationReason {
        switch revocation {
        case .developerIssue: return .developerIssue
        case .other: return .other
        }
    }

    /// An environment StoreKit could not name counts as production, the
    /// strictest; the JWS names its environment for the server anyway.
    static func environment(_ environment: TransactionSnapshot.Environment) -> StoreEnvironment {
        switch environment {
        case .production, .unknown: return .production
        case .sandbox: return .sandbox
        case .xcode: return .xcode
        }
    }

    /// Whether a restore brings the transaction back: StoreKit's current
    /// entitlements also list non-renewing subscriptions, which the library
    /// does not restore.
    static func isRestorable(_ snapshot: TransactionSnapshot) -> Bool {
        productType(snapshot.productKind)?.isRestorable ?? false
    }

    /// The update for a transaction StoreKit handed over outside a purchase
    /// call (`Transaction.updates`, `Transaction.unfinished`): revoked when
    /// the App Store took it back, paid otherwise. An unverified transaction
    /// is never reported revoked (a forged revocation must not take a
    /// purchase away) and reaches the verifier with its `unverified:` receipt.
    /// Upgraded and expired subscriptions are paid transactions like any
    /// other; the engine already knows them and changes nothing.
    static func update(for snapshot: TransactionSnapshot, storeInitiated: Bool, date: Date) -> TransactionUpdate {
        let revoked = snapshot.revocationDate != nil && snapshot.isVerified
        return TransactionUpdate(kind: revoked ? .revoked : .purchased, productID: snapshot.productID,
                                 orderToken: orderToken(from: snapshot.appAccountToken),
                                 transaction: storeTransaction(snapshot), date: date,
                                 isStoreInitiated: storeInitiated && !revoked)
    }

    /// The update that answers a payment with how its purchase call ended.
    /// It carries the payment's token, so the engine finds the order even
    /// when StoreKit answers with a transaction of an earlier purchase (the
    /// account owns the product already). No `paymentID`: StoreKit 2 keeps
    /// nothing to finish for a payment that was not charged.
    static func update(answering payment: Payment, with outcome: PurchaseOutcome, date: Date) -> TransactionUpdate {
        let kind: TransactionUpdate.Kind
        var transaction: StoreTransaction?
        switch outcome {
        case .purchased(let event):
            transaction = storeTransaction(event.snapshot)
            kind = event.snapshot.revocationDate != nil && event.snapshot.isVerified ? .revoked : .purchased
        case .pending:
            // StoreKit 2 does not tell Ask to Buy from other pending actions.
            kind = .deferred
        case .userCancelled:
            kind = .cancelled
        case .failed(let failure):
            kind = self.kind(for: failure)
        }
        return TransactionUpdate(kind: kind, productID: payment.productID, orderToken: payment.orderToken,
                                 transaction: transaction, date: date)
    }

    /// What a refused purchase means to the engine.
    static func kind(for failure: StoreKitFailure) -> TransactionUpdate.Kind {
        switch failure {
        case .userCancelled: return .cancelled
        case .networkError: return .failed(.networkError)
        case .notAvailableInStorefront, .productUnavailable: return .failed(.productNotAvailable)
        case .notEntitled: return .failed(.clientInvalid)
        case .purchaseNotAllowed: return .failed(.paymentNotAllowed)
        case .invalidQuantity, .unsupported: return .failed(.paymentInvalid)
        case .invalidOffer: return .failed(.invalidOffer)
        case .ineligibleForOffer: return .failed(.ineligibleForOffer)
        case .systemError, .unknown: return .failed(.unknown)
        }
    }

    // MARK: Products

    /// The library's product, or nil when StoreKit describes one the library
    /// cannot hold (an unknown type, a period no App Store product has): the
    /// adapter then reports its identifier as invalid rather than guess.
    static func product(_ snapshot: ProductSnapshot) -> PurchaseKit.StoreProduct? {
        guard let type = productType(snapshot.kind) else { return nil }
        var subscription: SubscriptionInfo?
        if let info = snapshot.subscription {
            guard let period = period(info.period) else { return nil }
            subscription = SubscriptionInfo(groupID: info.groupID, period: period, groupLevel: info.groupLevel,
                                            introductoryOffer: info.introductoryOffer.flatMap(offer))
        }
        return PurchaseKit.StoreProduct(id: snapshot.id, type: type, displayName: snapshot.displayName,
                                   description: snapshot.description, price: snapshot.price,
                                   displayPrice: snapshot.displayPrice, currencyCode: snapshot.currencyCode,
                                   isFamilyShareable: snapshot.isFamilyShareable, subscription: subscription)
    }

    static func productType(_ kind: StoreProductKind) -> ProductType? {
        switch kind {
        case .consumable: return .consumable
        case .nonConsumable: return .nonConsumable
        case .autoRenewable: return .autoRenewable
        case .nonRenewable: return .nonRenewable
        case .unknown: return nil
        }
    }

    static func period(_ period: ProductSnapshot.Period) -> SubscriptionPeriod? {
        let unit: SubscriptionPeriod.Unit
        switch period.unit {
        case .day: unit = .day
        case .week: unit = .week
        case .month: unit = .month
        case .year: unit = .year
        case .unknown: return nil
        }
        return try? SubscriptionPeriod(value: period.value, unit: unit)
    }

    /// An offer the library cannot hold (an unknown payment mode, a bad period) is left out.
    static func offer(_ offer: ProductSnapshot.Offer) -> IntroductoryOffer? {
        let mode: OfferPaymentMode
        switch offer.paymentMode {
        case .freeTrial: mode = .freeTrial
        case .payAsYouGo: mode = .payAsYouGo
        case .payUpFront: mode = .payUpFront
        case .unknown: return nil
        }
        guard let period = period(offer.period), offer.periodCount >= 1 else { return nil }
        return IntroductoryOffer(paymentMode: mode, period: period, periodCount: offer.periodCount,
                                 displayPrice: offer.displayPrice)
    }

    // MARK: Subscriptions

    /// How the engine sees a renewal. Only what StoreKit verified grants
    /// anything: an unverified status says nothing (nil), and a grace period
    /// without a verified end is reported as billing retry (no access).
    static func renewalState(_ snapshot: RenewalSnapshot) -> SubscriptionRenewalState? {
        guard snapshot.isTransactionVerified else { return nil }
        switch snapshot.state {
        case .subscribed:
            return .active(willRenew: snapshot.renewalInfo?.willAutoRenew ?? false)
        case .inGracePeriod:
            guard let until = snapshot.renewalInfo?.gracePeriodExpirationDate else { return .inBillingRetry }
            return .inGracePeriod(until: until)
        case .inBillingRetryPeriod:
            return .inBillingRetry
        case .expired, .revoked:
            return .expired
        case .unknown:
            return nil
        }
    }
}
