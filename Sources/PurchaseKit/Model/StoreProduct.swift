import Foundation

/// What kind of thing a product sells; it decides restore, entitlement and
/// consumable accounting.
public enum ProductType: String, Sendable, Hashable, Codable, CaseIterable {
    /// Used up and bought again: coins, lives. Never restored; counted as a balance.
    case consumable
    /// Bought once, kept forever, restored on a new device.
    case nonConsumable
    /// Renews every period until cancelled.
    case autoRenewable
    /// Lasts a fixed time and does not renew.
    case nonRenewable

    /// Whether restore brings this type back.
    public var isRestorable: Bool { self == .nonConsumable || self == .autoRenewable }
}

/// How an introductory offer is paid.
public enum OfferPaymentMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Nothing is paid during the offer.
    case freeTrial
    /// A reduced price each period of the offer.
    case payAsYouGo
    /// One reduced payment for the whole offer.
    case payUpFront
}

/// An introductory offer on an auto-renewable subscription.
public struct IntroductoryOffer: Sendable, Hashable, Codable {
    /// How the offer is paid.
    public var paymentMode: OfferPaymentMode
    /// The length of one offer period.
    public var period: SubscriptionPeriod
    /// How many periods the offer lasts.
    public var periodCount: Int
    /// The offer's price as shown to the user, when it has one.
    public var displayPrice: String?

    /// Creates an introductory offer.
    public init(paymentMode: OfferPaymentMode, period: SubscriptionPeriod, periodCount: Int = 1, displayPrice: String? = nil) {
        self.paymentMode = paymentMode
        self.period = period
        self.periodCount = periodCount
        self.displayPrice = displayPrice
    }
}

/// The subscription facts of a subscription product.
public struct SubscriptionInfo: Sendable, Hashable, Codable {
    /// The subscription group; a user holds at most one subscription of a group.
    public var groupID: String
    /// The renewal period.
    public var period: SubscriptionPeriod
    /// The rank inside the group (1 is the highest level of service), when known.
    public var groupLevel: Int?
    /// The introductory offer, if any.
    public var introductoryOffer: IntroductoryOffer?
    /// The subscription group's name, when the store gives it (absent in data
    /// written before it was kept).
    public var groupName: String?
    /// The other offers: promotional, offer codes, win-back (empty in data
    /// written before they were kept).
    public var offers: [SubscriptionOffer]

    /// Creates the subscription facts of a product.
    public init(groupID: String, period: SubscriptionPeriod, groupLevel: Int? = nil, introductoryOffer: IntroductoryOffer? = nil,
                groupName: String? = nil, offers: [SubscriptionOffer] = []) {
        self.groupID = groupID
        self.period = period
        self.groupLevel = groupLevel
        self.introductoryOffer = introductoryOffer
        self.groupName = groupName
        self.offers = offers
    }

    private enum CodingKeys: String, CodingKey {
        case groupID, period, groupLevel, introductoryOffer, groupName, offers
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        groupID = try container.decode(String.self, forKey: .groupID)
        period = try container.decode(SubscriptionPeriod.self, forKey: .period)
        groupLevel = try container.decodeIfPresent(Int.self, forKey: .groupLevel)
        introductoryOffer = try container.decodeIfPresent(IntroductoryOffer.self, forKey: .introductoryOffer)
        groupName = try container.decodeIfPresent(String.self, forKey: .groupName)
        offers = try container.decodeIfPresent([SubscriptionOffer].self, forKey: .offers) ?? []
    }
}

/// A product as the store sells it.
public struct StoreProduct: Sendable, Hashable, Codable, Identifiable {
    /// The store's product identifier, such as `com.example.coins.100`.
    public var id: String
    /// What kind of product it is.
    public var type: ProductType
    /// The localized name.
    public var displayName: String
    /// The localized description.
    public var description: String
    /// The price in `currencyCode`, exactly.
    public var price: Decimal
    /// The price formatted for the user's storefront.
    public var displayPrice: String
    /// The ISO-4217 currency code of `price`.
    public var currencyCode: String
    /// Whether Family Sharing shares the purchase.
    public var isFamilyShareable: Bool
    /// Subscription facts; set for subscriptions (for a non-renewing one the period may be absent).
    public var subscription: SubscriptionInfo?

    /// Creates a product; `displayPrice` defaults to the price as written.
    public init(
        id: String,
        type: ProductType,
        displayName: String,
        description: String = "",
        price: Decimal,
        displayPrice: String? = nil,
        currencyCode: String = "USD",
        isFamilyShareable: Bool = false,
        subscription: SubscriptionInfo? = nil
    ) {
        self.id = id
        self.type = type
        self.displayName = displayName
        self.description = description
        self.price = price
        self.displayPrice = displayPrice ?? "\(price)"
        self.currencyCode = currencyCode
        self.isFamilyShareable = isFamilyShareable
        self.subscription = subscription
    }
}
