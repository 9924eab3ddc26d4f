import Foundation
import PurchaseKit

/// A one-time offer code the simulated store accepts.
/// What the store makes of a promotional offer on a payment.
enum OfferCheck {
    case valid(SubscriptionOffer)
    case refused(StoreFailureReason)
}

struct OfferCodeRecord: Sendable, Codable, Hashable {
    var code: String
    var productID: String
    var offerID: String
}

extension SimulatedPaymentQueue {
    /// The key id the simulated store accepts on promotional offers.
    public static var promotionalOfferKeyID: String { "SIMULATED-KEY" }

    /// How long a signed offer stays valid after its timestamp (24 hours, as the App Store says).
    static var promotionalOfferLifetime: TimeInterval { 24 * 3600 }

    /// Signs a promotional offer as the app's server would (with the
    /// simulated store's key, ``promotionalOfferKeyID``), for tests and previews.
    /// The signature covers the product, the offer, the key, the nonce and the timestamp.
    public nonisolated func signPromotionalOffer(offerID: String, productID: String, nonce: UUID = UUID(),
                                                 timestamp: Date) -> SignedOffer {
        let milliseconds = Int((timestamp.timeIntervalSince1970 * 1000).rounded())
        let keyID = Self.promotionalOfferKeyID
        let signature = offerSignature(productID: productID, offerID: offerID, keyID: keyID, nonce: nonce, timestamp: milliseconds)
        return SignedOffer(offerID: offerID, keyID: keyID, nonce: nonce, signature: signature, timestamp: milliseconds)
    }

    nonisolated func offerSignature(productID: String, offerID: String, keyID: String, nonce: UUID, timestamp: Int) -> Data {
        let body = [productID, offerID, keyID, nonce.uuidString.lowercased(), String(timestamp)].joined(separator: "\u{1F}")
        return Data(signer.checksum(of: body).utf8)
    }

    /// Checks a promotional offer as the App Store does before charging: the
    /// product must list it, the signature must be the store key's over this
    /// product and offer, the nonce unused, the timestamp within a day; and
    /// the account must have subscribed in the group before (promotional
    /// offers are for existing and lapsed subscribers). A valid offer's nonce is used up.
    func checkPromotionalOffer(_ signed: SignedOffer, for product: StoreProduct,
                               at now: Date) -> OfferCheck {
        guard product.type == .autoRenewable, let info = product.subscription,
              let offer = info.offer(id: signed.offerID, kind: .promotional) else {
            return .refused(.invalidOffer)
        }
        let expected = offerSignature(productID: product.id, offerID: signed.offerID, keyID: signed.keyID,
                                      nonce: signed.nonce, timestamp: signed.timestamp)
        let signedAt = Date(timeIntervalSince1970: Double(signed.timestamp) / 1000)
        guard signed.keyID == Self.promotionalOfferKeyID, signed.signature == expected,
              !usedOfferNonces.contains(signed.nonce),
              abs(now.timeIntervalSince(signedAt)) <= Self.promotionalOfferLifetime else {
            return .refused(.invalidOffer)
        }
        guard !isEligibleForIntroductoryOffer(groupID: info.groupID) else { return .refused(.ineligibleForOffer) }
        usedOfferNonces.insert(signed.nonce)
        return .valid(offer)
    }

    /// Whether the account may still have an introductory offer in the group:
    /// not once it subscribed there, by purchase or by an offer (Apple offers
    /// an introductory offer once per group).
    public func isEligibleForIntroOffer(groupID: String) async -> Bool? {
        isEligibleForIntroductoryOffer(groupID: groupID)
    }

    // MARK: Offer codes

    /// Makes `code` a one-time code for the product's offer code `offerID`
    /// (a ``SubscriptionOffer`` of kind `offerCode`), as App Store Connect
    /// generates codes.
    ///
    /// - Throws: ``PurchaseKitError/Code/invalidConfiguration`` when the product has no such offer.
    public func addOfferCode(_ code: String, productID: String, offerID: String) throws(PurchaseKitError) {
        guard catalog[productID]?.subscription?.offer(id: offerID, kind: .offerCode) != nil else {
            throw PurchaseKitError(.invalidConfiguration, "The product '\(productID)' has no offer code '\(offerID)'.",
                                   advice: "Add the offer to the product's codeOffers first.", keyPath: "offerID")
        }
        offerCodes[code] = OfferCodeRecord(code: code, productID: productID, offerID: offerID)
    }

    /// The user redeems an offer code in the App Store, outside the app.
    ///
    /// Without a subscription running in the group, a subscription to the
    /// code's product starts now with the offer's period, and its transaction
    /// arrives as a store-initiated `.purchased` update (no order token), which
    /// the engine credits to the current user. With one running, the offer
    /// becomes the next renewal (of the code's product), as the App Store
    /// applies a code for an existing subscriber at the next renewal date.
    ///
    /// - Returns: the new transaction, or nil when the offer waits for the next renewal.
    /// - Throws: ``PurchaseKitError/Code/offerCodeInvalid`` (unknown or already
    ///   redeemed), ``PurchaseKitError/Code/offerIneligible`` (the offer's
    ///   eligibility leaves this account out).
    @discardableResult
    public func redeemOfferCode(_ code: String, userID: String) async throws(PurchaseKitError) -> StoreTransaction? {
        guard let redeemable = offerCodes[code], let product = catalog[redeemable.productID], let info = product.subscription,
              let offer = info.offer(id: redeemable.offerID, kind: .offerCode) else {
            throw PurchaseKitError(.offerCodeInvalid, "The offer code is unknown or was redeemed already.",
                                   advice: "Check the code; each code can be redeemed once.")
        }
        let running = subscriptions.values.first { subscriptionGroup(of: $0.productID) == info.groupID && $0.state.grantsAccess }
        let standing: SubscriptionOffer.Eligibility = running != nil
            ? .existing : isEligibleForIntroductoryOffer(groupID: info.groupID) ? .new : .expired
        guard offer.eligibility.isEmpty || offer.eligibility.contains(standing) else {
            throw PurchaseKitError(.offerIneligible, "This offer code is not for \(standing.rawValue) subscribers of the group.",
                                   advice: "Tell the user the code does not apply to their account.")
        }
        offerCodes[code] = nil
        if var current = running {
            current.scheduledChange = ScheduledChange(productID: product.id, orderToken: nil, userID: userID, quantity: 1,
                                                      offerPeriod: offer.period, offerPeriodCount: offer.periodCount)
            current.willAutoRenew = true
            subscriptions[current.productID] = current
            return nil
        }
        guard let transaction = charge(product, quantity: 1, orderToken: nil, userID: userID, at: clock.now, offer: offer) else {
            return nil
        }
        var redeemed = update(.purchased, for: transaction)
        redeemed.isStoreInitiated = true
        await send([redeemed], faults: faults(for: product.id))
        return transaction
    }
}
