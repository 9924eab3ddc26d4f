import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// What the user owns is answered from what was stored, whatever the store
/// sells today: products removed from sale, products this store never sold,
/// a catalog that cannot be loaded, and orders written before the product's
/// type was recorded on them.
final class StoreCatalogChangeTests: XCTestCase {
    private let everything = [Catalog.coins, Catalog.pro, Catalog.monthly, Catalog.season]

    /// Alice buys 2 + 3 coins, Pro and Plus monthly.
    private func buyEverything(_ engine: PurchaseEngine) async throws {
        _ = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: 2)
        _ = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: 3)
        _ = try await engine.purchase(productID: Catalog.pro, user: "alice")
        _ = try await engine.purchase(productID: Catalog.monthly, user: "alice")
        await engine.waitUntilIdle()
    }

    private func assertAliceOwnsWhatSheBought(_ engine: PurchaseEngine, group: String = Catalog.group,
                                              file: StaticString = #filePath, line: UInt = #line) async throws {
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.pro, Catalog.monthly].sorted(), file: file, line: line)
        XCTAssertEqual(entitlements.first { $0.productID == Catalog.pro }?.productType, .nonConsumable, file: file, line: line)
        XCTAssertEqual(entitlements.first { $0.productID == Catalog.monthly }?.productType, .autoRenewable, file: file, line: line)
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 5], file: file, line: line)
        let status = try await engine.subscriptionStatus(user: "alice")
        XCTAssertEqual(status, [group: .subscribed], file: file, line: line)
    }

    private func guessedProducts(_ world: World) -> [String] {
        world.log.records.filter { $0.message.contains("answered from the stored transactions") }
            .compactMap { $0.metadata["productIDs"] }
    }

    func testWhatWasBoughtIsStillOwnedAfterTheProductsAreRemovedFromSale() async throws {
        let world = World()
        try await buyEverything(try await world.engine())
        for product in everything { await world.store.removeFromSale(productID: product) }

        let relaunched = try await world.engine()
        try await assertAliceOwnsWhatSheBought(relaunched)
        XCTAssertTrue(guessedProducts(world).isEmpty, "the orders recorded their products' types")
        do {
            _ = try await relaunched.purchase(productID: Catalog.coins, user: "alice")
            XCTFail("the store no longer sells coins")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .invalidProductIdentifiers)
        }
    }

    func testOrdersWithoutARecordedTypeAskTheStoresCatalog() async throws {
        let world = World()
        try await buyEverything(try await world.engine())
        try await rewriteAsOldDocuments(world)

        let relaunched = try await world.engine()
        try await assertAliceOwnsWhatSheBought(relaunched)
        XCTAssertTrue(guessedProducts(world).isEmpty, "the store still describes every product")
    }

    func testOrdersWithoutARecordedTypeOfProductsNoLongerSoldAreAnsweredFromTheirTransactions() async throws {
        let world = World()
        try await buyEverything(try await world.engine())
        try await rewriteAsOldDocuments(world)
        for product in everything { await world.store.removeFromSale(productID: product) }

        let relaunched = try await world.engine()
        // Nobody knows the subscription's group any more: the product stands for its own group.
        try await assertAliceOwnsWhatSheBought(relaunched, group: Catalog.monthly)
        XCTAssertFalse(guessedProducts(world).isEmpty, "guessing is logged")

        // The same when the catalog cannot be loaded at all.
        await world.store.setProductRequestsFail(true)
        try await assertAliceOwnsWhatSheBought(try await world.engine(), group: Catalog.monthly)
    }

    func testARenewalOfASubscriptionRemovedFromSaleKeepsItsGroup() async throws {
        let world = World()
        let engine = try await world.engine()
        let first = try await engine.purchase(productID: Catalog.monthly, user: "alice").order
        await world.store.removeFromSale(productID: Catalog.monthly)

        let relaunched = try await world.engine()
        world.clock.advance(by: 40 * 86_400)
        await world.store.processRenewals()
        await relaunched.waitUntilIdle()
        let renewals = await world.orders.orders(forUser: "alice").filter { $0.source == .renewal }
        XCTAssertEqual(renewals.count, 1, "existing subscribers keep renewing")
        XCTAssertEqual(renewals.first?.status, .completed)

        let entitlements = try await relaunched.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.monthly])
        XCTAssertEqual(entitlements.first?.transactionID, renewals.first?.transactionID, "the renewal grants it now")
        XCTAssertGreaterThan(try XCTUnwrap(entitlements.first?.expirationDate), try XCTUnwrap(first.transaction?.expirationDate))
        let status = try await relaunched.subscriptionStatus(user: "alice")
        XCTAssertEqual(status, [Catalog.group: .subscribed], "the group comes from the first purchase of the same subscription")
    }

    func testAnUnsolicitedTransactionForAProductTheStoreDoesNotSellNeverThrows() async throws {
        let world = World()
        // Another device buys Pro while our app is not running; then the store stops selling it.
        try await SimulatedDevice(world: world).buy(Catalog.pro)
        await world.store.removeFromSale(productID: Catalog.pro)

        let engine = try PurchaseEngine(configuration: world.configuration())
        await engine.setCurrentUser("carol")
        try await engine.start()
        await engine.waitUntilIdle()

        let orders = await world.orders.orders(forUser: "carol")
        XCTAssertEqual(orders.map(\.source), [.otherDevice])
        XCTAssertEqual(orders.map(\.status), [.completed])
        let entitlements = try await engine.entitlements(user: "carol")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.pro])
        XCTAssertEqual(entitlements.map(\.productType), [.nonConsumable])
        let balance = try await engine.consumableBalance(user: "carol")
        XCTAssertTrue(balance.isEmpty)
        let status = try await engine.subscriptionStatus(user: "carol")
        XCTAssertTrue(status.isEmpty)
        XCTAssertEqual(guessedProducts(world), [Catalog.pro, Catalog.pro, Catalog.pro])
    }

    /// Rewrites alice's stored orders as a build from before `productType`
    /// existed wrote them: the same JSON without the two keys.
    private func rewriteAsOldDocuments(_ world: World) async throws {
        for order in await world.orders.orders(forUser: "alice") {
            var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: try OrderCoding.encode(order)) as? [String: Any])
            XCTAssertNotNil(object["productType"], "a new order records its product's type")
            object["productType"] = nil
            object["subscriptionGroupID"] = nil
            let old = try OrderCoding.decode(try JSONSerialization.data(withJSONObject: object))
            XCTAssertNil(old.productType)
            let wasArchived = await world.orders.openOrders(forUser: "alice").allSatisfy { $0.id != order.id }
            await world.orders.save(old)
            if wasArchived { try await world.orders.archive(orderID: old.id) }
        }
    }
}
