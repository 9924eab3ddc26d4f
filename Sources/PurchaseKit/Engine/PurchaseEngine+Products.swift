extension PurchaseEngine {
    /// The store's products for `identifiers`, with the identifiers it does
    /// not know.
    ///
    /// Products are cached for the engine's life: a call whose identifiers
    /// were all loaded before answers from the cache without asking the store;
    /// otherwise only the identifiers not cached are asked for. An identifier
    /// the store did not know is asked for again next time (it may have been
    /// approved since). `refresh: true` asks the store for every identifier
    /// and replaces what was cached (prices and names change); a product the
    /// store no longer sells leaves the cache and is reported invalid.
    /// Purchases use the same cache.
    ///
    /// - Throws: ``PurchaseKitError/Code/productRequestFailed`` (or the
    ///   store's own error code) when the store cannot answer; nothing cached
    ///   changes then.
    public func products(for identifiers: Set<String>, refresh: Bool = false) async throws -> ProductList {
        let missing = refresh ? identifiers : identifiers.filter { products[$0] == nil }
        var invalid: [String] = []
        if !missing.isEmpty {
            let response: ProductsResponse
            do {
                response = try await withStore { try await $0.products(for: missing) }
            } catch {
                throw PurchaseKitError.wrap(error, as: .productRequestFailed, "The store could not load the products.",
                                            advice: "Check the network and try again.")
            }
            for product in response.products where missing.contains(product.id) { products[product.id] = product }
            let found = Set(response.products.map(\.id))
            invalid = missing.filter { !found.contains($0) }.sorted()
            for id in invalid { products[id] = nil }
            if !invalid.isEmpty {
                log(.warning, "The store does not sell some requested products", ["productIDs": invalid.joined(separator: ",")])
            }
        }
        return ProductList(products: identifiers.compactMap { products[$0] }, invalidProductIDs: invalid)
    }

    /// Asks the store again for every product cached, replacing the cache:
    /// call it when the storefront may have changed (prices, currency).
    ///
    /// - Returns: the products now cached, and those the store no longer sells.
    /// - Throws: ``PurchaseKitError/Code/productRequestFailed`` when the store cannot answer.
    @discardableResult
    public func refreshProducts() async throws -> ProductList {
        try await products(for: Set(products.keys), refresh: true)
    }

    /// The products cached now, without asking the store.
    public var cachedProducts: ProductList {
        ProductList(products: Array(products.values), invalidProductIDs: [])
    }
}
