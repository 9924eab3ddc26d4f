import Foundation
import PurchaseKit

/// The store's record of one transaction of the account.
struct TransactionRecord: Sendable, Codable {
    /// The transaction as the app sees it.
    var transaction: StoreTransaction
    /// The app user of the payment. The store keeps it; the app's server
    /// credits `request.order.userID`, never this.
    var userID: String
    /// Whether the app called `finish`.
    var isFinished: Bool
    /// Whether a `.revoked` update reached an observer; until then attach replays it.
    var revocationSeen: Bool
    /// An upgrade (or an immediate crossgrade) ended this subscription period
    /// early; the store refunded the rest (absent in old files).
    var isUpgraded: Bool? = nil
    /// What the store refunded of this period's price at the upgrade: the
    /// price times the share of the period left (absent in old files).
    var proratedRefund: Decimal? = nil
    /// What an offer period cost, when it was one (absent: the list price).
    var pricePaid: Decimal? = nil
}

/// A failed or cancelled payment the store keeps in its queue until the app
/// finishes it, as StoreKit 1 does with failed transactions.
struct UnpaidPaymentRecord: Sendable, Codable {
    /// The id the app finishes it by.
    var id: String
    /// The failed or cancelled update, replayed on attach until finished.
    var kind: UnpaidKind
    var productID: String
    var orderToken: String?
    var isFinished: Bool

    enum UnpaidKind: Sendable, Codable, Hashable {
        case cancelled
        case failed(StoreFailureReason)
    }
}

/// A weak reference to the observer: the store must not keep the app's engine alive.
struct WeakObserver {
    weak var value: (any PaymentQueueObserver)?
}
