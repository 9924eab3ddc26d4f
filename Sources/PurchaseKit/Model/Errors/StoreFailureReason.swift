/// Why the store refused a payment, in terms a caller can act on.
public enum StoreFailureReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// The payment request was malformed (bad quantity, unknown offer).
    case paymentInvalid
    /// The account may not make this payment.
    case paymentNotAllowed
    /// The device lost the network during the payment. The store may still
    /// charge it later; the charge is then credited to the same order.
    case networkError
    /// The product is not available in the user's storefront.
    case productNotAvailable
    /// The client is not allowed to issue the request (signed out, restricted).
    case clientInvalid
    /// Ask to Buy: the parent declined.
    case declined
    /// The store account already owns the product (a non-consumable, or a
    /// subscription still running): nothing was charged and the store answered
    /// with the existing transaction, which belongs to an earlier order.
    case alreadyOwned
    /// A promotional offer the store does not know for the product, or whose
    /// signature, key or nonce it refused.
    case invalidOffer
    /// The user may not have the offer (a promotional offer is for those who
    /// subscribed in the group before).
    case ineligibleForOffer
    /// The store gave no reason.
    case unknown

    /// What the reason means, in a sentence.
    public var explanation: String {
        switch self {
        case .paymentInvalid: return "the payment request was invalid."
        case .paymentNotAllowed: return "this account is not allowed to make the payment."
        case .networkError: return "the network connection was lost during the payment."
        case .productNotAvailable: return "the product is not available in this storefront."
        case .clientInvalid: return "the store account is signed out or restricted."
        case .declined: return "the request to buy was declined."
        case .alreadyOwned: return "the store account already owns this product; nothing was charged."
        case .invalidOffer: return "the store refused the offer: unknown to the product, or its signature is invalid."
        case .ineligibleForOffer: return "the user is not eligible for the offer."
        case .unknown: return "the store gave no reason."
        }
    }

    /// What to do about it.
    public var advice: String {
        switch self {
        case .paymentInvalid: return "Check the product id and quantity; this is a programming error, not a user error."
        case .paymentNotAllowed, .clientInvalid: return "Ask the user to check their store account and restrictions."
        case .networkError:
            return "The store may still charge the payment once the connection is back; if it does, it is credited to this order "
                + "when the store reports it. Refresh the user's purchases before offering to buy again."
        case .productNotAvailable: return "Hide the product in this storefront."
        case .declined: return "Tell the user the request was declined; nothing was charged."
        case .alreadyOwned: return "Check entitlements: if the earlier order is this user's, it is already delivered; otherwise the purchase belongs to another user of this store account."
        case .invalidOffer: return "Nothing was charged. Check the offer id and have the server sign a fresh offer."
        case .ineligibleForOffer: return "Nothing was charged. Offer the product without the offer."
        case .unknown:
            return "Let the user try again later. Should the store charge the payment after all, it is credited to this order "
                + "when the store reports it."
        }
    }
}
