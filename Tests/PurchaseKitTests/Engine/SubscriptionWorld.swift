import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// One subscription group with levels and a promotional offer, on a store
/// whose day passes in one clock second (or in real time), for the engine's
/// subscription tests.
struct SubscriptionWorld {
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

    let clock = ManualClock()
    let store: SimulatedPaymentQueue
    let server: SimulatedReceiptServer
    let orders = InMemoryOrderStore()

    init(fast: Bool = true) {
        let signer = ReceiptSigner()
        let settings = fast ? StoreKitConfiguration.Settings(timeRate: .init(xcodeRawValue: 6)) : .init()
        store = SimulatedPaymentQueue(products: Self.products, settings: settings, clock: clock, seed: 5, signer: signer)
        server = SimulatedReceiptServer(signer: signer, clock: clock, seed: 5, store: store)
    }

    func engine(queue: (any PaymentQueue)? = nil) async throws -> PurchaseEngine {
        let engine = try PurchaseEngine(configuration: .init(
            paymentQueue: queue ?? store, receiptVerifier: server, orderStore: orders,
            orderGenerator: CountingOrderGenerator(), clock: clock))
        try await engine.start()
        await engine.waitUntilIdle()
        return engine
    }

    /// Moves the clock, lets the store renew and decide, and waits for the engine.
    func advance(by seconds: TimeInterval, _ engine: PurchaseEngine) async {
        clock.advance(by: seconds)
        await store.processRenewals()
        await engine.waitUntilIdle()
    }
}
