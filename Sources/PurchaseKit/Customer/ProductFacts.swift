import Foundation

/// What the queries need to know about the product of a stored order, and
/// where it came from. Entitlements and balances are facts about money the
/// user spent; they must not depend on what the store sells today.
struct ProductFacts: Sendable, Equatable {
    /// Where the facts came from, best first.
    enum Source: Sendable, Equatable {
        /// Recorded on the order when it was made.
        case order
        /// The store's catalog (an order written before the type was recorded).
        case catalog
        /// Neither knows: guessed from the stored transaction.
        case inferred
    }

    var type: ProductType
    /// The subscription group, for an auto-renewable subscription.
    var groupID: String?
    var source: Source

    /// The product type a stored order shows by itself, for a product nobody
    /// can describe any more (removed from sale, or never sold by this store):
    /// a transaction with an expiration date (or a renewal) is an auto-renewable
    /// subscription; several units are a consumable; anything else is kept as
    /// a non-consumable, so that what the user paid for stays an entitlement
    /// rather than silently disappearing.
    static func inferredType(of order: Order) -> ProductType {
        if order.transaction?.expirationDate != nil || order.source == .renewal { return .autoRenewable }
        if (order.transaction?.quantity ?? order.quantity) > 1 { return .consumable }
        return .nonConsumable
    }

    /// The facts of every order: recorded on the order, else from `catalog`,
    /// else recorded on another order of the same product (an order adopted
    /// before the engine knew the product, next to one bought in the app),
    /// else inferred. A subscription group missing everywhere is taken from
    /// another order of the same purchase (same original transaction), else
    /// the product id stands for its own group. Pure.
    static func resolve(_ orders: [Order], catalog: [String: StoreProduct]) -> [String: ProductFacts] {
        var groupByOriginal: [String: String] = [:]
        var typeByProduct: [String: ProductType] = [:]
        var groupByProduct: [String: String] = [:]
        for order in orders {
            if let recorded = order.productType { typeByProduct[order.productID] = recorded }
            if let group = order.subscriptionGroupID { groupByProduct[order.productID] = group }
            if let original = order.transaction?.originalID,
               let group = order.subscriptionGroupID ?? catalog[order.productID]?.subscription?.groupID {
                groupByOriginal[original] = group
            }
        }
        var facts: [String: ProductFacts] = [:]
        for order in orders {
            let product = catalog[order.productID]
            let type: ProductType
            let source: Source
            if let recorded = order.productType {
                (type, source) = (recorded, .order)
            } else if let product {
                (type, source) = (product.type, .catalog)
            } else if let recorded = typeByProduct[order.productID] {
                (type, source) = (recorded, .order)
            } else {
                (type, source) = (inferredType(of: order), .inferred)
            }
            var group: String?
            if type == .autoRenewable {
                group = order.subscriptionGroupID ?? product?.subscription?.groupID
                    ?? order.transaction.flatMap { groupByOriginal[$0.originalID] }
                    ?? groupByProduct[order.productID] ?? order.productID
            }
            facts[order.id] = ProductFacts(type: type, groupID: group, source: source)
        }
        return facts
    }
}

/// A user's consumable balance, summed so that it never traps: a stored
/// quantity no App Store purchase can have is left out and reported, and the
/// sum saturates instead of overflowing.
struct ConsumableTally: Sendable, Equatable {
    /// An order left out of the sum, and why.
    struct Skipped: Sendable, Equatable {
        var orderID: String
        var quantity: Int
    }

    /// Units by product id.
    private(set) var balance: [String: Int] = [:]
    /// Orders left out: their stored quantity is not one a purchase can have.
    private(set) var skipped: [Skipped] = []
    /// Products whose sum reached `Int.max`.
    private(set) var saturated: Set<String> = []

    /// Counts a delivered consumable order: the units its transaction was charged for.
    mutating func add(_ order: Order) {
        let quantity = order.transaction?.quantity ?? order.quantity
        guard ProductType.consumable.allowedQuantities.contains(quantity) else {
            skipped.append(Skipped(orderID: order.id, quantity: quantity))
            return
        }
        let (sum, overflow) = balance[order.productID, default: 0].addingReportingOverflow(quantity)
        if overflow { saturated.insert(order.productID) }
        balance[order.productID] = overflow ? Int.max : sum
    }
}
