// StoreKit values into the adapter's snapshots. Touches StoreKit (or, where
// it is absent, its transcription in StoreKitInterface); see StoreKitClient.swift.
//
// StoreKit's enums may gain cases, so they are compared, never switched
// over: an `@unknown default` would be flagged as unreachable where the
// transcription is compiled from source, and its absence where StoreKit is.
#if canImport(StoreKit)
import StoreKit
#else
import StoreKitInterface
#endif
import Foundation

extension TransactionEvent {
    /// A transaction StoreKit handed over, verified or not; finishing it calls `finish()`.
    init(_ result: VerificationResult<Transaction>) {
        let transaction: Transaction
        let verification: TransactionSnapshot.Verification
        switch result {
        case .verified(let value):
            transaction = value
            verification = .verified(jws: result.jwsRepresentation)
        case .unverified(let value, let error):
            transaction = value
            verification = .unverified(reason: Self.reason(error))
        }
        self.init(snapshot: TransactionSnapshot(transaction, verification: verification),
                  finish: { await transaction.finish() })
    }

    private static func reason(_ error: VerificationResult<Transaction>.VerificationError) -> String {
        // `TransactionSnapshot.verifiesLater` reads this one: StoreKit may verify it later.
        if error == .revokedCertificate { return "revokedCertificate" }
        if error == .invalidCertificateChain { return "invalidCertificateChain" }
        if error == .invalidDeviceVerification { return "invalidDeviceVerification" }
        if error == .invalidEncoding { return "invalidEncoding" }
        if error == .invalidSignature { return "invalidSignature" }
        if error == .missingRequiredProperties { return "missingRequiredProperties" }
        return "unknown"
    }
}

extension TransactionSnapshot {
    init(_ transaction: Transaction, verification: Verification) {
        var revocation: Revocation?
        if let reason = transaction.revocationReason {
            revocation = reason == .developerIssue ? .developerIssue : .other
        }
        self.init(id: transaction.id, originalID: transaction.originalID, productID: transaction.productID,
                  productKind: StoreProductKind(transaction.productType), subscriptionGroupID: transaction.subscriptionGroupID,
                  purchaseDate: transaction.purchaseDate, expirationDate: transaction.expirationDate,
                  revocationDate: transaction.revocationDate, revocationReason: revocation,
                  quantity: transaction.purchasedQuantity, appAccountToken: transaction.appAccountToken,
                  isUpgraded: transaction.isUpgraded, environment: Self.environment(of: transaction), verification: verification,
                  reason: Self.reason(of: transaction))
    }

    /// `Transaction.reason` from iOS 17 on. Before, StoreKit's string form:
    /// Apple's interface warns that it may then say "PURCHASE" as a sentinel
    /// (StoreKit Testing in Xcode, a critical server error), so only
    /// "RENEWAL" is taken at its word. Nil leaves a token-less change of tier
    /// to the engine's renewal rule, which follows the subscription's user.
    private static func reason(of transaction: Transaction) -> Reason? {
        if #available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *) {
            let reason = transaction.reason
            if reason == .purchase { return .purchase }
            if reason == .renewal { return .renewal }
            return nil
        }
        #if os(visionOS)
        return nil
        #else
        return transaction.reasonStringRepresentation == "RENEWAL" ? .renewal : nil
        #endif
    }

    private static func environment(of transaction: Transaction) -> Environment {
        if #available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *) {
            let environment = transaction.environment
            if environment == .production { return .production }
            if environment == .sandbox { return .sandbox }
            if environment == .xcode { return .xcode }
            return .unknown
        }
        #if os(visionOS)
        return .unknown
        #else
        // StoreKit's documented names before iOS 16; an empty string is its sentinel for "unknown".
        switch transaction.environmentStringRepresentation {
        case "Production": return .production
        case "Sandbox": return .sandbox
        case "Xcode": return .xcode
        default: return .unknown
        }
        #endif
    }
}

extension StoreProductKind {
    init(_ type: Product.ProductType) {
        if type == .consumable {
            self = .consumable
        } else if type == .nonConsumable {
            self = .nonConsumable
        } else if type == .autoRenewable {
            self = .autoRenewable
        } else if type == .nonRenewable {
            self = .nonRenewable
        } else {
            self = .unknown
        }
    }
}

extension ProductSnapshot {
    init(_ product: Product) {
        var subscription: Subscription?
        if let info = product.subscription {
            var level: Int?
            if #available(iOS 16.4, macOS 13.3, tvOS 16.4, watchOS 9.4, *) {
                // StoreKit's documented sentinel for "unknown" is 0.
                level = info.groupLevel > 0 ? info.groupLevel : nil
            }
            subscription = Subscription(groupID: info.subscriptionGroupID, period: Period(info.subscriptionPeriod),
                                        groupLevel: level, introductoryOffer: info.introductoryOffer.map(Offer.init))
        }
        self.init(id: product.id, kind: StoreProductKind(product.type), displayName: product.displayName,
                  description: product.description, price: product.price, displayPrice: product.displayPrice,
                  currencyCode: product.priceFormatStyle.currencyCode, isFamilyShareable: product.isFamilyShareable,
                  subscription: subscription)
    }
}

extension ProductSnapshot.Period {
    init(_ period: Product.SubscriptionPeriod) {
        let unit: Unit
        if period.unit == .day {
            unit = .day
        } else if period.unit == .week {
            unit = .week
        } else if period.unit == .month {
            unit = .month
        } else if period.unit == .year {
            unit = .year
        } else {
            unit = .unknown
        }
        self.init(unit: unit, value: period.value)
    }
}

extension ProductSnapshot.Offer {
    init(_ offer: Product.SubscriptionOffer) {
        let mode: PaymentMode
        if offer.paymentMode == .freeTrial {
            mode = .freeTrial
        } else if offer.paymentMode == .payAsYouGo {
            mode = .payAsYouGo
        } else if offer.paymentMode == .payUpFront {
            mode = .payUpFront
        } else {
            mode = .unknown
        }
        self.init(paymentMode: mode, period: ProductSnapshot.Period(offer.period), periodCount: offer.periodCount,
                  displayPrice: offer.displayPrice)
    }
}

extension RenewalSnapshot {
    init(_ status: Product.SubscriptionInfo.Status) {
        let state: State
        if status.state == .subscribed {
            state = .subscribed
        } else if status.state == .expired {
            state = .expired
        } else if status.state == .inBillingRetryPeriod {
            state = .inBillingRetryPeriod
        } else if status.state == .inGracePeriod {
            state = .inGracePeriod
        } else if status.state == .revoked {
            state = .revoked
        } else {
            state = .unknown
        }
        var info: RenewalInfo?
        if case .verified(let renewal) = status.renewalInfo {
            info = RenewalInfo(willAutoRenew: renewal.willAutoRenew, gracePeriodExpirationDate: renewal.gracePeriodExpirationDate)
        }
        var transactionVerified = false
        if case .verified = status.transaction { transactionVerified = true }
        self.init(state: state, isTransactionVerified: transactionVerified, renewalInfo: info)
    }
}

extension StoreKitFailure {
    /// What `purchase(options:)` or `Product.products(for:)` threw.
    init(_ error: any Error) {
        if let purchase = error as? Product.PurchaseError {
            self = Self.failure(purchase)
        } else if let storeKit = error as? StoreKitError {
            self = Self.failure(storeKit)
        } else {
            self = .unknown
        }
    }

    private static func failure(_ error: Product.PurchaseError) -> StoreKitFailure {
        if error == .invalidQuantity { return .invalidQuantity }
        if error == .productUnavailable { return .productUnavailable }
        if error == .purchaseNotAllowed { return .purchaseNotAllowed }
        if error == .ineligibleForOffer { return .ineligibleForOffer }
        if error == .invalidOfferIdentifier || error == .invalidOfferPrice
            || error == .invalidOfferSignature || error == .missingOfferParameters {
            return .invalidOffer
        }
        return .unknown
    }

    private static func failure(_ error: StoreKitError) -> StoreKitFailure {
        if case .userCancelled = error { return .userCancelled }
        if case .networkError = error { return .networkError }
        if case .notAvailableInStorefront = error { return .notAvailableInStorefront }
        if case .systemError = error { return .systemError }
        if #available(iOS 15.4, macOS 12.3, tvOS 15.4, watchOS 8.5, *), case .notEntitled = error { return .notEntitled }
        if #available(iOS 18.4, macOS 15.4, tvOS 18.4, watchOS 11.4, visionOS 2.4, *), case .unsupported = error { return .unsupported }
        return .unknown
    }
}
