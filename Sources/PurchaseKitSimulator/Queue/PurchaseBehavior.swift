import PurchaseKit

/// What the simulated store does with a payment.
public enum PurchaseBehavior: Sendable, Hashable, Codable {
    /// The user pays: `.purchasing`, then `.purchased` with a new transaction.
    case success
    /// The user cancels the payment sheet: `.purchasing`, then `.cancelled`.
    case userCancel
    /// The store refuses: `.purchasing`, then `.failed(reason)`.
    case fail(StoreFailureReason)
    /// Ask to Buy: `.purchasing`, then `.deferred`; a parent later approves
    /// (`.purchased` arrives with no purchase call waiting) or declines (`.failed(.declined)`).
    case askToBuy
    /// The purchase needs a user action outside the app: `.purchasing`, then
    /// `.interrupted`; completing it delivers `.purchased`.
    case interrupted
    /// The store reports the payment failed (`.failed(.networkError)`) but
    /// charges it later: completing it delivers `.purchased` for the same
    /// payment, as an interrupted StoreKit purchase does.
    case failsThenPays
    /// The store reports the payment cancelled, then charges it later.
    case cancelsThenPays
}

/// Delivery faults of the real store, switchable globally, per product or for
/// one scripted purchase.
public struct DeliveryFaults: Sendable, Hashable, Codable {
    /// The transaction (and every update about it) arrives without the
    /// payment's order token: the `applicationUsername` problem.
    public var losesOrderToken: Bool
    /// How many extra times each batch of updates is delivered (0: once, as it should be).
    public var extraDeliveries: Int
    /// The updates are held back until ``SimulatedPaymentQueue/releaseHeldUpdates(order:)``:
    /// they arrive late, possibly out of order.
    public var holdsUpdates: Bool

    /// The quantity the store reports on the transaction instead of the
    /// payment's: a broken or hostile store (zero, negative, `Int.max`...), for
    /// testing that an impossible quantity is never delivered. Nil: the payment's.
    public var transactionQuantity: Int?

    /// No fault.
    public static let none = DeliveryFaults()

    public init(losesOrderToken: Bool = false, extraDeliveries: Int = 0, holdsUpdates: Bool = false,
                transactionQuantity: Int? = nil) {
        self.losesOrderToken = losesOrderToken
        self.extraDeliveries = max(0, extraDeliveries)
        self.holdsUpdates = holdsUpdates
        self.transactionQuantity = transactionQuantity
    }
}

/// A scripted outcome for one coming purchase.
public struct PurchaseScript: Sendable, Hashable {
    /// What the store does with the payment.
    public var behavior: PurchaseBehavior
    /// The faults of this purchase; nil uses the product's or the global ones.
    public var faults: DeliveryFaults?

    public init(_ behavior: PurchaseBehavior, faults: DeliveryFaults? = nil) {
        self.behavior = behavior
        self.faults = faults
    }
}

/// The order in which held-back updates are released.
public enum ReleaseOrder: Sendable, Hashable {
    /// In the order the store produced them.
    case asProduced
    /// Newest first.
    case reversed
    /// Shuffled with the store's seeded generator: the same seed gives the same order.
    case shuffled
}
