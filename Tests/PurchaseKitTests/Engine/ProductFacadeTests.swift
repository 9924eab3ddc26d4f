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

    /// A store that counts its product requests.
    private func engine(_ world: World, _ counting: CountingProductsQueue) async throws -> PurchaseEngine {
        try await world.engine(world.configuration(queue: counting))
    }

    func testTypedListsAndSubscriptionGroups() async throws {
        let world = World()
        let store = SimulatedPaymentQueue(products: try shop(), clock: world.clock)
        let engine = try await world.engine(world.configuration(queue: store))
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
        let counting = CountingProductsQueue(base: world.store)
        let engine = try await engine(world, counting)
        _ = try await engine.products(for: [Catalog.pro, Catalog.coins])
        XCTAssertEqual(counting.requests, [[Catalog.coins, Catalog.pro]])
        let again = try await engine.products(for: [Catalog.pro])
        XCTAssertEqual(again.products.map(\.id), [Catalog.pro])
        XCTAssertEqual(counting.requests.count, 1, "answered from the cache")
        // Only what is not cached is asked for.
        _ = try await engine.products(for: [Catalog.pro, Catalog.season])
        XCTAssertEqual(counting.requests.last, [Catalog.season])
        // A purchase uses the same cache.
        _ = try await engine.purchase(productID: Catalog.coins, user: "alice")
        XCTAssertEqual(counting.requests.count, 2)
    }

    func testARefreshAsksAgainAndDropsWhatIsNoLongerSold() async throws {
        let world = World()
        let counting = CountingProductsQueue(base: world.store)
        let engine = try await engine(world, counting)
        _ = try await engine.products(for: [Catalog.pro, Catalog.coins])
        await world.store.removeFromSale(productID: Catalog.coins)
        var list = try await engine.products(for: [Catalog.pro, Catalog.coins])
        XCTAssertEqual(list.products.map(\.id), [Catalog.coins, Catalog.pro], "the cache still has it")
        list = try await engine.refreshProducts()
        XCTAssertEqual(counting.requests.last, [Catalog.coins, Catalog.pro])
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

/// The simulated store, counting the product requests it gets.
final class CountingProductsQueue: PaymentQueue {
    let base: SimulatedPaymentQueue
    private let log = Locked<[[String]]>([])
    init(base: SimulatedPaymentQueue) { self.base = base }

    /// The identifiers of each request, sorted, in order.
    var requests: [[String]] { log.withLock { $0 } }

    func products(for identifiers: Set<String>) async throws -> ProductsResponse {
        log.withLock { $0.append(identifiers.sorted()) }
        return try await base.products(for: identifiers)
    }
    func canMakePayments() async -> Bool { await base.canMakePayments() }
    func add(_ payment: Payment) async throws { try await base.add(payment) }
    func finish(transactionID: String) async throws { try await base.finish(transactionID: transactionID) }
    func restoreCompletedTransactions() async throws -> [StoreTransaction] { try await base.restoreCompletedTransactions() }
    func revokedTransactions() async throws -> [StoreTransaction] { try await base.revokedTransactions() }
    func attach(_ observer: any PaymentQueueObserver) async { await base.attach(observer) }
}
