import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// A small catalog used across the tests.
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
}
