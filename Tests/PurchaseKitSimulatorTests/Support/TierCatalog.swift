import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// A subscription group with levels and offers, for the group-change, offer and refund tests.
enum TierCatalog {
    static let group = "tiers"
    /// Level 1 (highest), monthly; an offer code for new subscribers and one for existing ones.
    static let pro = "tier.pro.monthly"
    /// Level 2, monthly, with a promotional offer and an introductory free week.
    static let basic = "tier.basic.monthly"
    /// Level 2, monthly: a crossgrade of the same duration from `basic`.
    static let plus = "tier.plus.monthly"
    /// Level 2, yearly: a crossgrade of another duration from `basic`.
    static let basicYearly = "tier.basic.yearly"
    static let promo = "comeback-three-months"

    static func period(_ iso: String) -> SubscriptionPeriod {
        try! SubscriptionPeriod(iso8601: iso)
    }

    static var products: [StoreProduct] {
        func sub(_ id: String, level: Int, period: String, intro: IntroductoryOffer? = nil,
                 offers: [SubscriptionOffer] = []) -> StoreProduct {
            StoreProduct(id: id, type: .autoRenewable, displayName: id, price: 4,
                    subscription: SubscriptionInfo(groupID: group, period: Self.period(period), groupLevel: level,
                                                   introductoryOffer: intro, groupName: "Tiers", offers: offers))
        }
        return [
            sub(pro, level: 1, period: "P1M", offers: [
                SubscriptionOffer(id: "free-week", kind: .offerCode, paymentMode: .freeTrial, period: period("P1W"),
                                  eligibility: [.new]),
                SubscriptionOffer(id: "loyal-month", kind: .offerCode, paymentMode: .freeTrial, period: period("P2W"),
                                  eligibility: [.existing]),
            ]),
            sub(basic, level: 2, period: "P1M",
                intro: IntroductoryOffer(paymentMode: .freeTrial, period: period("P1W")),
                offers: [SubscriptionOffer(id: promo, kind: .promotional, paymentMode: .payAsYouGo, period: period("P1M"),
                                           periodCount: 3, displayPrice: "0.99")]),
            sub(plus, level: 2, period: "P1M"),
            sub(basicYearly, level: 2, period: "P1Y"),
        ]
    }

    /// A day per clock second.
    static let fast = StoreKitConfiguration.Settings(timeRate: .init(xcodeRawValue: 6))

    static func makeStore() async -> (SimulatedPaymentQueue, ManualClock, RecordingObserver) {
        let clock = ManualClock()
        let store = SimulatedPaymentQueue(products: products, settings: fast, clock: clock, seed: 3)
        let observer = RecordingObserver()
        await store.attach(observer)
        return (store, clock, observer)
    }

    static func payment(_ productID: String, token: String, offer: SignedOffer? = nil) -> Payment {
        Payment(productID: productID, orderToken: token, userID: "user-a", promotionalOffer: offer)
    }
}
