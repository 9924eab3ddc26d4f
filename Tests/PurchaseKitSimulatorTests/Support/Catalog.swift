import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// The products the simulator tests sell: a small catalog of every type, and
/// a subscription group with levels and offers (``TestCatalog/Tiers``).
enum TestCatalog {
    static let coins = "coins.100"
    static let premium = "premium.lifetime"
    static let monthly = "sub.monthly"
    static let weekly = "sub.weekly.trial"
    static let pass = "pass.season"

    static var products: [StoreProduct] {
        get throws {
            [
                StoreProduct(id: coins, type: .consumable, displayName: "100 Coins", price: Decimal(string: "0.99")!),
                StoreProduct(id: premium, type: .nonConsumable, displayName: "Premium", price: Decimal(string: "4.99")!),
                StoreProduct(id: monthly, type: .autoRenewable, displayName: "Monthly", price: Decimal(string: "2.99")!,
                        subscription: SubscriptionInfo(groupID: "main", period: try SubscriptionPeriod(iso8601: "P1M"))),
                StoreProduct(id: weekly, type: .autoRenewable, displayName: "Weekly", price: Decimal(string: "0.99")!,
                        subscription: SubscriptionInfo(
                            groupID: "other", period: try SubscriptionPeriod(iso8601: "P1W"),
                            introductoryOffer: IntroductoryOffer(paymentMode: .freeTrial,
                                                                 period: try SubscriptionPeriod(iso8601: "P3D")))),
                StoreProduct(id: pass, type: .nonRenewable, displayName: "Season pass", price: Decimal(string: "9.99")!),
            ]
        }
    }

    /// A store on a manual clock, with an observer attached.
    static func makeStore(
        seed: UInt64 = 1, settings: StoreKitConfiguration.Settings = .init(), environment: StoreEnvironment = .sandbox
    ) async throws -> (SimulatedPaymentQueue, ManualClock, RecordingObserver) {
        let clock = ManualClock()
        let store = SimulatedPaymentQueue(products: try products, settings: settings, clock: clock, seed: seed,
                                          environment: environment)
        let observer = RecordingObserver()
        await store.attach(observer)
        return (store, clock, observer)
    }

    static func payment(_ productID: String, token: String = "order-1", user: String = "user-a", quantity: Int = 1) -> Payment {
        Payment(productID: productID, quantity: quantity, orderToken: token, userID: user)
    }

    /// A subscription group with levels and offers, for the group-change, offer and refund tests.
    enum Tiers {
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
}
