import Foundation

/// A purchase the store asks the app to make: the user tapped a promoted
/// in-app purchase on the App Store (StoreKit 2's `PurchaseIntent`, StoreKit
/// 1's `shouldAddStorePayment`). Nothing is paid yet: the app decides whether
/// to buy it, and buys it like any purchase.
public struct PromotedPurchaseIntent: Sendable, Hashable, Identifiable {
    /// The store's id of the intent, unique among the intents of one store.
    public var id: String
    /// The product the user chose.
    public var productID: String
    /// When the store reported it.
    public var date: Date

    /// Creates an intent.
    public init(id: String, productID: String, date: Date) {
        self.id = id
        self.productID = productID
        self.date = date
    }
}

extension PaymentQueueObserver {
    /// The store reports a promoted purchase the user started outside the
    /// app. The default does nothing (nothing is bought); the engine asks its
    /// promoted-purchase handler.
    public func paymentQueue(didReceive intent: PromotedPurchaseIntent) async {}
}
