import Foundation
import PurchaseKit

/// The products every engine test sells: a consumable, a non-consumable, a
/// subscription and a season pass; and, for the subscription tests, a group
/// of levels with offers (``Catalog/Tiers``).
enum Catalog {
    static let coins = "com.example.coins.100"
    static let pro = "com.example.pro"
    static let monthly = "com.example.plus.monthly"
    static let season = "com.example.season"
    static let group = "plus-group"

    static var products: [StoreProduct] {
        [
            StoreProduct(id: coins, type: .consumable, displayName: "100 coins", price: Decimal(string: "0.99")!),
            StoreProduct(id: pro, type: .nonConsumable, displayName: "Pro", price: Decimal(string: "4.99")!),
            StoreProduct(id: monthly, type: .autoRenewable, displayName: "Plus monthly", price: Decimal(string: "2.99")!,
                    subscription: SubscriptionInfo(groupID: group, period: try! SubscriptionPeriod(iso8601: "P1M"))),
            StoreProduct(id: season, type: .nonRenewable, displayName: "Season pass", price: Decimal(string: "9.99")!),
        ]
    }

    /// One subscription group with levels and a promotional offer.
    enum Tiers {
        static let group = "tiers"
        /// Level 1, monthly; an offer code for new subscribers.
        static let pro = "tier.pro"
        /// Level 2, monthly; a promotional offer and an introductory week.
        static let basic = "tier.basic"
        static let promo = "comeback"

        static var products: [StoreProduct] {
            let month = try! SubscriptionPeriod(iso8601: "P1M")
            let week = try! SubscriptionPeriod(iso8601: "P1W")
            return [
                StoreProduct(id: pro, type: .autoRenewable, displayName: "Pro", price: 9,
                        subscription: SubscriptionInfo(groupID: group, period: month, groupLevel: 1, groupName: "Tiers", offers: [
                            SubscriptionOffer(id: "free-week", kind: .offerCode, paymentMode: .freeTrial, period: week,
                                              eligibility: [.new]),
                        ])),
                StoreProduct(id: basic, type: .autoRenewable, displayName: "Basic", price: 4,
                        subscription: SubscriptionInfo(
                            groupID: group, period: month, groupLevel: 2,
                            introductoryOffer: IntroductoryOffer(paymentMode: .freeTrial, period: week), groupName: "Tiers",
                            offers: [SubscriptionOffer(id: promo, kind: .promotional, paymentMode: .payAsYouGo, period: month,
                                                       periodCount: 2, displayPrice: "1.99")])),
            ]
        }
    }
}
