import Foundation

extension ProductType {
    /// The most units one App Store payment (and so one transaction) can carry.
    /// StoreKit documents the quantity of a payment as 1 to 10.
    public static let maximumQuantity = 10

    /// The quantities one payment or transaction of this type can carry:
    /// 1 to 10 for consumables and non-renewing subscriptions (the types
    /// StoreKit lets a payment buy several of), exactly 1 for a non-consumable
    /// or an auto-renewable subscription. Anything else never comes from the App
    /// Store: it is damage or an attack, and is never delivered or counted.
    public var allowedQuantities: ClosedRange<Int> {
        switch self {
        case .consumable, .nonRenewable: return 1...Self.maximumQuantity
        case .nonConsumable, .autoRenewable: return 1...1
        }
    }

    /// The quantities allowed when the product's type may be unknown (an old
    /// order, a product the store no longer sells): only the bound every type shares.
    static func allowedQuantities(for type: ProductType?) -> ClosedRange<Int> {
        type?.allowedQuantities ?? 1...maximumQuantity
    }
}

extension StoreProduct {
    /// Checks a purchase quantity before anything is created or charged.
    ///
    /// - Throws: ``PurchaseKitError/Code/invalidConfiguration`` with `keyPath`
    ///   `quantity` when the App Store would not accept it for this product.
    public func validatePurchaseQuantity(_ quantity: Int) throws(PurchaseKitError) {
        let allowed = type.allowedQuantities
        guard !allowed.contains(quantity) else { return }
        let range = allowed.count == 1 ? "exactly \(allowed.lowerBound)" : "\(allowed.lowerBound) to \(allowed.upperBound)"
        throw PurchaseKitError(
            .invalidConfiguration,
            "A purchase of '\(id)' (\(type.rawValue)) must be for \(range) unit\(allowed.count == 1 ? "" : "s"); got \(quantity).",
            advice: "Nothing was charged. Pass a quantity the App Store accepts for this product.",
            keyPath: "quantity")
    }
}
