import Foundation

// What StoreKit told the adapter, as plain values. The StoreKit layer
// (`StoreKitClient`) makes them; everything else in the adapter — mapping,
// sequencing, what to deliver and when to finish — works on them alone, so
// it is tested without StoreKit.

/// The kind of product a transaction or product is for.
enum StoreProductKind: Sendable, Hashable {
    case consumable, nonConsumable, autoRenewable, nonRenewable
    /// A type this adapter does not know (added to StoreKit later).
    case unknown
}

/// One transaction, as StoreKit reported it.
struct TransactionSnapshot: Sendable, Hashable {
    /// The App Store environment that signed it.
    enum Environment: Sendable, Hashable {
        case production, sandbox, xcode
        /// StoreKit gave no usable value (its documented sentinel, an empty string).
        case unknown
    }

    /// Why the App Store took the transaction back.
    enum Revocation: Sendable, Hashable {
        case developerIssue, other
    }

    /// Whether StoreKit verified the transaction's signature. Only a verified
    /// transaction carries its JWS; an unverified one carries StoreKit's reason.
    enum Verification: Sendable, Hashable {
        case verified(jws: String)
        case unverified(reason: String)
    }

    var id: UInt64
    var originalID: UInt64
    var productID: String
    var productKind: StoreProductKind
    var subscriptionGroupID: String?
    var purchaseDate: Date
    var expirationDate: Date?
    var revocationDate: Date?
    var revocationReason: Revocation?
    var quantity: Int
    var appAccountToken: UUID?
    /// The subscription was upgraded to one of higher service in its group.
    var isUpgraded: Bool
    var environment: Environment
    var verification: Verification
    /// Why the App Store made it, when StoreKit says for sure (see
    /// `TransactionSnapshot(_:verification:)`); nil otherwise.
    var reason: Reason? = nil

    /// Why the App Store made a transaction.
    enum Reason: Sendable, Hashable {
        /// The customer paid: a purchase, or a change of tier starting now.
        case purchase
        /// A renewal, or a change of tier taking effect at the renewal date.
        case renewal
    }

    var isVerified: Bool {
        if case .verified = verification { return true }
        return false
    }

    /// StoreKit could not verify it *for now*: a certificate of the chain was
    /// revoked, and StoreKit says of `revokedCertificate` that trying again
    /// later may retrieve valid signed data. Handed to the engine, it would be
    /// rejected and finished: a payment lost. It is left unfinished in
    /// StoreKit instead, which verifies it again when `Transaction.unfinished`
    /// is next read (the next launch) and then hands over its JWS.
    var verifiesLater: Bool {
        verification == .unverified(reason: "revokedCertificate")
    }
}

/// A transaction StoreKit handed over, with the way to finish it: StoreKit's
/// `Transaction` itself stays inside the closure until the engine finishes it.
struct TransactionEvent: Sendable {
    var snapshot: TransactionSnapshot
    var finish: @Sendable () async -> Void
}

/// One product, as StoreKit described it.
struct ProductSnapshot: Sendable, Hashable {
    struct Period: Sendable, Hashable {
        enum Unit: Sendable, Hashable { case day, week, month, year, unknown }
        var unit: Unit
        var value: Int
    }

    struct Offer: Sendable, Hashable {
        enum PaymentMode: Sendable, Hashable { case freeTrial, payAsYouGo, payUpFront, unknown }
        var paymentMode: PaymentMode
        var period: Period
        var periodCount: Int
        var displayPrice: String
    }

    struct Subscription: Sendable, Hashable {
        var groupID: String
        var period: Period
        /// Nil where StoreKit cannot tell (before iOS 16.4, or its sentinel 0).
        var groupLevel: Int?
        var introductoryOffer: Offer?
    }

    var id: String
    var kind: StoreProductKind
    var displayName: String
    var description: String
    var price: Decimal
    var displayPrice: String
    var currencyCode: String
    var isFamilyShareable: Bool
    var subscription: Subscription?
}

/// How StoreKit sees one subscription's renewal (`Product.SubscriptionInfo.Status`).
struct RenewalSnapshot: Sendable, Hashable {
    enum State: Sendable, Hashable {
        case subscribed, expired, inBillingRetryPeriod, inGracePeriod, revoked, unknown
    }

    var state: State
    /// Whether StoreKit verified the status's transaction.
    var isTransactionVerified: Bool
    /// The renewal info, when StoreKit verified it; nil otherwise.
    var renewalInfo: RenewalInfo?

    struct RenewalInfo: Sendable, Hashable {
        var willAutoRenew: Bool
        var gracePeriodExpirationDate: Date?
    }
}

/// Why StoreKit refused a purchase: the cases of `Product.PurchaseError` and
/// `StoreKitError` the adapter tells apart.
enum StoreKitFailure: Sendable, Hashable {
    case userCancelled
    case networkError
    case notAvailableInStorefront
    case notEntitled
    case unsupported
    case systemError
    case invalidQuantity
    case productUnavailable
    case purchaseNotAllowed
    /// Any of the promotional-offer errors.
    case invalidOffer
    case ineligibleForOffer
    case unknown
}

/// How a call of `purchase(options:)` ended.
enum PurchaseOutcome: Sendable {
    case purchased(TransactionEvent)
    case pending
    case userCancelled
    case failed(StoreKitFailure)
}

/// A purchase the user started on the App Store (`PurchaseIntent`): the
/// product, and the way to buy it.
struct PromotedPurchase: Sendable {
    var product: ProductSnapshot
    var buy: @Sendable () async -> PurchaseOutcome
}
