import Foundation

/// An offer on an auto-renewable subscription other than its introductory
/// offer, as a StoreKit configuration or App Store Connect defines it.
public struct SubscriptionOffer: Sendable, Hashable, Codable {
    /// Which kind of offer it is, and so how a user gets it.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A promotional offer (`adHocOffers` in a `.storekit` file): the app
        /// passes a ``SignedOffer`` its server signed with the purchase.
        case promotional
        /// An offer code (`codeOffers`): the user redeems a code; the
        /// subscription arrives as a store-initiated transaction.
        case offerCode
        /// A win-back offer (`winbackOffers`) for lapsed subscribers.
        case winBack
    }

    /// Who may redeem an offer code, as App Store Connect says it.
    public enum Eligibility: String, Sendable, Hashable, Codable, CaseIterable {
        /// Never subscribed in the group.
        case new
        /// Subscribed in the group now.
        case existing
        /// Subscribed in the group before, not now.
        case expired
    }

    /// The offer's identifier: `offerID` for promotional and win-back offers,
    /// the reference name for an offer code (a `.storekit` file gives offer
    /// codes no other identifier).
    public var id: String
    /// Which kind of offer it is.
    public var kind: Kind
    /// How the offer is paid.
    public var paymentMode: OfferPaymentMode
    /// The length of one offer period.
    public var period: SubscriptionPeriod
    /// How many periods the offer lasts.
    public var periodCount: Int
    /// The offer's price as shown to the user, when it has one.
    public var displayPrice: String?
    /// For an offer code: who may redeem it (empty: anyone).
    public var eligibility: [Eligibility]

    /// Creates an offer.
    public init(id: String, kind: Kind, paymentMode: OfferPaymentMode, period: SubscriptionPeriod, periodCount: Int = 1,
                displayPrice: String? = nil, eligibility: [Eligibility] = []) {
        self.id = id
        self.kind = kind
        self.paymentMode = paymentMode
        self.period = period
        self.periodCount = periodCount
        self.displayPrice = displayPrice
        self.eligibility = eligibility
    }
}

/// A promotional offer signed by the app's server for one purchase, passed
/// through ``Payment`` to the store untouched (StoreKit 2's
/// `Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`).
///
/// PurchaseKit does not read or check it: the store does, and refuses an
/// unknown offer or a bad signature (``StoreFailureReason/invalidOffer``) or
/// a user the offer is not for (``StoreFailureReason/ineligibleForOffer``).
/// `description` and `dump` never show the signature.
public struct SignedOffer: Sendable, Hashable, Codable {
    /// The promotional offer's identifier, as the product lists it.
    public var offerID: String
    /// The identifier of the key the server signed with.
    public var keyID: String
    /// The one-time value the signature covers.
    public var nonce: UUID
    /// The signature: opaque, secret, never logged.
    public var signature: Data
    /// When the server signed, in milliseconds since 1970.
    public var timestamp: Int

    /// Creates a signed offer from what your server signed; passed through to the store unread.
    public init(offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int) {
        self.offerID = offerID
        self.keyID = keyID
        self.nonce = nonce
        self.signature = signature
        self.timestamp = timestamp
    }
}

extension SignedOffer: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "SignedOffer(offerID: \(offerID), keyID: \(keyID), signature: <\(signature.count) bytes redacted>)"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["offerID": offerID, "keyID": keyID, "nonce": nonce, "timestamp": timestamp,
                                "signature": "<redacted>"], displayStyle: .struct)
    }
}

extension PurchaseKitError.Code {
    /// The offer code is unknown to the store, or was redeemed already.
    public static let offerCodeInvalid = Self(rawValue: "offerCodeInvalid")
    /// The user may not have this offer (an offer code for new subscribers
    /// redeemed by an existing one, for instance).
    public static let offerIneligible = Self(rawValue: "offerIneligible")
}
