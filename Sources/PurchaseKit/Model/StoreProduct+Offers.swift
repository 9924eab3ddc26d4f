extension SubscriptionInfo {
    /// The promotional offers (`adHocOffers`), for a purchase with a ``SignedOffer``.
    public var promotionalOffers: [SubscriptionOffer] { offers.filter { $0.kind == .promotional } }
    /// The offers redeemed with a code in the App Store.
    public var offerCodeOffers: [SubscriptionOffer] { offers.filter { $0.kind == .offerCode } }
    /// The win-back offers, for lapsed subscribers.
    public var winBackOffers: [SubscriptionOffer] { offers.filter { $0.kind == .winBack } }

    /// The offer of `kind` with this id, if the product has one.
    public func offer(id: String, kind: SubscriptionOffer.Kind) -> SubscriptionOffer? {
        offers.first { $0.kind == kind && $0.id == id }
    }
}
