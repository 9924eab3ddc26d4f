import Foundation
import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// `products(for:)` on the engine: typed lists, a cache that spares the
/// store, a refresh, and unknown identifiers reported.
final class ProductFacadeTests: XCTestCase {
    private static let annual = "com.example.plus.annual"
    private static let other = "com.example.other.monthly"

    private func shop() throws -> [StoreProduct] {
        let month = try SubscriptionPeriod(iso8601: "P1M")
        let year = try SubscriptionPeriod(iso8601: "P1Y")
        return Catalog.products + [
            StoreProduct(id: Self.annual, type: .autoRenewable, displayName: "Plus annual", price: 29,
                    subscription: SubscriptionInfo(groupID: Catalog.group, period: year, groupLevel: 1, groupName: "Plus")),
            StoreProduct(id: Self.other, type: .autoRenewable, displayName: "Other", price: 1,
                    subscription: SubscriptionInfo(groupID: "other-group", period: month)),
        ]
    }

    /// An engine over a store that records its product requests.
    private func engine(_ world: World, _ counting: InterceptingPaymentQueue) async throws -> PurchaseEngine {
        try await world.engine(world.configuration(queue: counting))
    }

    func testTypedListsAndSubscriptionGroups() async throws {
        let world = World(seed: 0, products: try shop())
        let engine = try await world.engine()
        let ids: Set = [Catalog.coins, Catalog.pro, Catalog.monthly, Catalog.season, Self.annual, Self.other]
        let list = try await engine.products(for: ids)
        XCTAssertEqual(list.consumables.map(\.id), [Catalog.coins])
        XCTAssertEqual(list.nonConsumables.map(\.id), [Catalog.pro])
        XCTAssertEqual(list.nonRenewables.map(\.id), [Catalog.season])
        XCTAssertEqual(list.subscriptionGroups.map(\.id), ["other-group", Catalog.group])
        // Highest level of service first; a product without a level last.
        XCTAssertEqual(list.subscriptionGroups.last?.products.map(\.id), [Self.annual, Catalog.monthly])
        XCTAssertEqual(list.subscriptionGroups.map(\.name), [nil, "Plus"], "from a product of the group that carries it")
        XCTAssertTrue(list.invalidProductIDs.isEmpty)
        XCTAssertEqual(list[Catalog.pro]?.displayName, "Pro")
    }

    func testUnknownIdentifiersAreReported() async throws {
        let world = World()
        let engine = try await world.engine()
        let list = try await engine.products(for: [Catalog.pro, "com.example.typo", "com.example.gone"])
        XCTAssertEqual(list.products.map(\.id), [Catalog.pro])
        XCTAssertEqual(list.invalidProductIDs, ["com.example.gone", "com.example.typo"])
    }

    func testASecondCallForKnownIdentifiersDoesNotAskTheStore() async throws {
        let world = World()
        let counting = InterceptingPaymentQueue(wrapping: world.store)
        let engine = try await engine(world, counting)
        _ = try await engine.products(for: [Catalog.pro, Catalog.coins])
        XCTAssertEqual(counting.productRequests, [[Catalog.coins, Catalog.pro]])
        let again = try await engine.products(for: [Catalog.pro])
        XCTAssertEqual(again.products.map(\.id), [Catalog.pro])
        XCTAssertEqual(counting.productRequests.count, 1, "answered from the cache")
        // Only what is not cached is asked for.
        _ = try await engine.products(for: [Catalog.pro, Catalog.season])
        XCTAssertEqual(counting.productRequests.last, [Catalog.season])
        // A purchase uses the same cache.
        _ = try await engine.purchase(productID: Catalog.coins, user: "alice")
        XCTAssertEqual(counting.productRequests.count, 2)
    }

    func testARefreshAsksAgainAndDropsWhatIsNoLongerSold() async throws {
        let world = World()
        let counting = InterceptingPaymentQueue(wrapping: world.store)
        let engine = try await engine(world, counting)
        _ = try await engine.products(for: [Catalog.pro, Catalog.coins])
        await world.store.removeFromSale(productID: Catalog.coins)
        var list = try await engine.products(for: [Catalog.pro, Catalog.coins])
        XCTAssertEqual(list.products.map(\.id), [Catalog.coins, Catalog.pro], "the cache still has it")
        list = try await engine.refreshProducts()
        XCTAssertEqual(counting.productRequests.last, [Catalog.coins, Catalog.pro])
        XCTAssertEqual(list.products.map(\.id), [Catalog.pro])
        XCTAssertEqual(list.invalidProductIDs, [Catalog.coins])
        let cached = await engine.cachedProducts
        XCTAssertEqual(cached.products.map(\.id), [Catalog.pro])
        list = try await engine.products(for: [Catalog.coins], refresh: true)
        XCTAssertEqual(list.invalidProductIDs, [Catalog.coins])
    }

    func testAStoreThatCannotAnswerThrowsAndKeepsTheCache() async throws {
        let world = World()
        let engine = try await world.engine()
        _ = try await engine.products(for: [Catalog.pro])
        await world.store.setProductRequestsFail(true)
        do {
            _ = try await engine.products(for: [Catalog.pro], refresh: true)
            XCTFail("expected productRequestFailed")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .productRequestFailed)
        }
        let cached = try await engine.products(for: [Catalog.pro])
        XCTAssertEqual(cached.products.map(\.id), [Catalog.pro])
    }
}

extension InterceptingPaymentQueue {
    /// The identifiers of each product request, sorted, in order.
    var productRequests: [[String]] {
        calls.compactMap { call in
            if case .products(let identifiers) = call { return identifiers.sorted() }
            return nil
        }
    }
}
