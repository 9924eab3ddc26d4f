/// The products a ``PurchaseEngine/products(for:refresh:)`` call asked for,
/// sorted into the lists a store screen shows, and the identifiers the store
/// did not know.
public struct ProductList: Sendable, Hashable {
    /// Every product found, sorted by id.
    public var products: [StoreProduct]
    /// The identifiers asked for that the store does not sell (unknown, or
    /// removed from sale), sorted. Never silently dropped: show them in a
    /// debug build, they are usually a typo or a product not yet approved.
    public var invalidProductIDs: [String]

    /// Creates a list; `products` and `invalidProductIDs` are sorted.
    public init(products: [StoreProduct], invalidProductIDs: [String]) {
        self.products = products.sorted { $0.id < $1.id }
        self.invalidProductIDs = invalidProductIDs.sorted()
    }

    /// The product with this id, when it was found.
    public subscript(id: String) -> StoreProduct? {
        products.first { $0.id == id }
    }

    /// The consumables, by id.
    public var consumables: [StoreProduct] { products.filter { $0.type == .consumable } }
    /// The non-consumables, by id.
    public var nonConsumables: [StoreProduct] { products.filter { $0.type == .nonConsumable } }
    /// The non-renewing subscriptions, by id.
    public var nonRenewables: [StoreProduct] { products.filter { $0.type == .nonRenewable } }
    /// The auto-renewable subscriptions, by group.
    public var autoRenewables: [StoreProduct] { products.filter { $0.type == .autoRenewable } }

    /// The auto-renewable subscriptions grouped by subscription group, groups
    /// sorted by id. An auto-renewable product that carries no subscription
    /// facts (a store that did not describe it) is in ``autoRenewables`` but
    /// in no group.
    public var subscriptionGroups: [SubscriptionGroup] {
        var byGroup: [String: [StoreProduct]] = [:]
        for product in autoRenewables {
            guard let groupID = product.subscription?.groupID else { continue }
            byGroup[groupID, default: []].append(product)
        }
        return byGroup.keys.sorted().map { id in
            let products = byGroup[id] ?? []
            let name = products.lazy.compactMap { $0.subscription?.groupName }.first
            return SubscriptionGroup(id: id, name: name, products: products)
        }
    }
}

/// The auto-renewable subscriptions of one subscription group: a user holds
/// at most one of them at a time.
public struct SubscriptionGroup: Sendable, Hashable, Identifiable {
    /// The group's id, as the store gives it.
    public var id: String
    /// The group's display name, from its products (`SubscriptionInfo.groupName`,
    /// such as a `.storekit` file's group name); nil when none of them carries one.
    public var name: String?
    /// The group's products, highest level of service first (`groupLevel` 1),
    /// then by id; products without a level come last.
    public var products: [StoreProduct]

    /// Creates a group; `products` are sorted by level, then id.
    public init(id: String, name: String? = nil, products: [StoreProduct]) {
        self.id = id
        self.name = name
        self.products = products.sorted {
            ($0.subscription?.groupLevel ?? .max, $0.id) < ($1.subscription?.groupLevel ?? .max, $1.id)
        }
    }
}
