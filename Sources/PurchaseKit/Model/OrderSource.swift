/// How an order came to exist.
public enum OrderSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The app called `purchase`.
    case purchase
    /// `restorePurchases` brought the transaction back.
    case restore
    /// An auto-renewable subscription renewed.
    case renewal
    /// A purchase that no order was waiting for (made on another device of the
    /// same account, or approved after its order was lost), credited to the
    /// app's current user.
    case otherDevice
    /// A purchase started by the store (promoted in-app purchase, offer code).
    case storeInitiated
    /// A transaction the reconciler could not attribute safely.
    case unknown
}
