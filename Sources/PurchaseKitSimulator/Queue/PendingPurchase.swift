import Foundation
import PurchaseKit

/// A purchase the store holds: waiting for Ask to Buy approval, or for the
/// user to finish an interrupted purchase.
public struct PendingPurchase: Sendable, Hashable, Codable, Identifiable {
    /// Why the purchase waits.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Waiting for a parent's approval.
        case askToBuy
        /// Waiting for the user to act (accept terms, fix the payment method).
        case interrupted
        /// Reported failed or cancelled to the app, charged later.
        case latePayment
    }

    /// The store's id for the pending purchase.
    public var id: String
    /// Why it waits.
    public var kind: Kind
    /// The product.
    public var productID: String
    /// How many units.
    public var quantity: Int
    /// The order token the resulting transaction will carry; nil when the store lost it.
    public var orderToken: String?
    /// The app user who made the payment.
    public var userID: String
    /// When the payment was made.
    public var requestedAt: Date

    /// The payment's own order token, kept even when the transaction loses it,
    /// so that the demo can approve "by order id".
    var paymentOrderToken: String
    /// The faults chosen when the payment was made, applied to the outcome.
    var faults: DeliveryFaults
    /// The promotional offer the store accepted with the payment (absent in old files).
    var offer: SubscriptionOffer? = nil
}

extension PendingPurchase: CustomStringConvertible, CustomReflectable {
    /// `dump` shows no order token.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "id": id, "kind": kind, "productID": productID, "quantity": quantity, "userID": userID,
            "requestedAt": requestedAt, "orderToken": orderToken == nil ? "none" : "<redacted>",
        ], displayStyle: .struct)
    }

    public var description: String {
        "PendingPurchase(id: \(id), kind: \(kind.rawValue), productID: \(productID), userID: \(userID), orderToken: \(orderToken == nil ? "none" : "<redacted>"))"
    }
}
