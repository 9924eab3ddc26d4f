/// How an order came to exist.
public enum OrderSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The app called `purchase`.
    case purchase
    /// `restorePurchases` brought the transaction back.
    case restore
    /// An auto-renewable subscription renewed.
    case renewal
    /// A payment approved after Ask to Buy, arriving with no purchase call waiting.
    case askToBuyApproval
    /// A purchase made on another device of the same account.
    case otherDevice
    /// A purchase started by the store (promoted in-app purchase, offer code).
    case storeInitiated
    /// A transaction the reconciler could not attribute safely.
    case unknown
}
