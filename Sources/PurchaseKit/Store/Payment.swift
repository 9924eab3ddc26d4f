/// A request to charge the user for a product, as handed to the store.
public struct Payment: Sendable, Hashable, Codable {
    /// The product to buy.
    public var productID: String
    /// How many units.
    public var quantity: Int
    /// The order id, carried on the payment so the resulting transaction can be
    /// matched to its order (`applicationUsername` in StoreKit 1,
    /// `appAccountToken` in StoreKit 2). The store may lose it.
    public var orderToken: String
    /// The app's user, as the store may see it (a hash, never personal data).
    public var userID: String
    /// A promotional offer the app's server signed for this purchase, passed to the store untouched.
    public var promotionalOffer: SignedOffer?

    /// Creates a payment for `quantity` of a product, carrying the order's token.
    public init(productID: String, quantity: Int = 1, orderToken: String, userID: String, promotionalOffer: SignedOffer? = nil) {
        self.productID = productID
        self.quantity = quantity
        self.orderToken = orderToken
        self.userID = userID
        self.promotionalOffer = promotionalOffer
    }
}

extension Payment: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["productID": productID, "quantity": quantity, "userID": userID, "orderToken": "<redacted>",
                                     "promotionalOffer": promotionalOffer as Any],
               displayStyle: .struct)
    }

    public var description: String {
        "Payment(productID: \(productID), quantity: \(quantity), userID: \(userID), orderToken: <redacted>"
            + (promotionalOffer.map { ", promotionalOffer: \($0.offerID)" } ?? "") + ")"
    }
}
