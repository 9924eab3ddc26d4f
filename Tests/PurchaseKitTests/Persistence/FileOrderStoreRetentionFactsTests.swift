import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// What an order records about its product (its type, its subscription group)
/// is what entitlements and balances are computed from when the store is not
/// asked: ``PurchaseEngine/customerInfo(user:)`` never asks it. Compaction past
/// the retention must keep it, or a paid consumable turns into a lifetime
/// purchase and a season pass into one that never ends.
final class FileOrderStoreRetentionFactsTests: XCTestCase {
    private let day: TimeInterval = 86_400

    func testCompactedOrdersKeepTheirProductTypeAndGroupAcrossRelaunches() async throws {
        let world = World()
        let storeClock = ManualClock(start: world.clock.now)
        let directory = try makeTemporaryDirectory(self)
        func fileStore() throws -> FileOrderStore {
            try FileOrderStore(directory: directory, configuration: .init(clock: storeClock))
        }
        func configuration() throws -> PurchaseEngine.Configuration {
            var configuration = world.configuration(store: try fileStore())
            configuration.policies.nonRenewingDurations = [Catalog.season: try SubscriptionPeriod(iso8601: "P7D")]
            return configuration
        }

        let engine = try await world.engine(try configuration())
        for product in [Catalog.coins, Catalog.season, Catalog.monthly] {
            _ = try await engine.purchase(productID: product, user: "alice")
        }
        await engine.waitUntilIdle()
        let before = try await engine.customerInfo(user: "alice")
        XCTAssertEqual(before.consumableBalances, [Catalog.coins: 1])
        XCTAssertEqual(before.entitlements.map(\.productID), [Catalog.monthly, Catalog.season])
        XCTAssertEqual(Array(before.subscriptions.keys), [Catalog.group])
        await engine.shutdown()

        // Past the retention: the first launch compacts the archive, the next reads the ledger.
        world.clock.advance(by: 31 * day)
        storeClock.advance(by: 31 * day)
        let compacting = try await world.engine(try configuration())
        await compacting.shutdown()
        XCTAssertEqual(names(in: directory, "archive"), [], "compacted past the retention")
        let relaunched = try await world.engine(try configuration())

        let info = try await relaunched.customerInfo(user: "alice")
        XCTAssertEqual(info.consumableBalances, [Catalog.coins: 1], "the coins bought are still a balance")
        XCTAssertEqual(info.entitlements.map(\.productID), [],
                       "the coins are no lifetime purchase, the week's season pass ran out, the month ended")
        XCTAssertEqual(Array(info.subscriptions.keys), [Catalog.group], "the subscription keeps its group")
        let stored = try await fileStore().orders(forUser: "alice")
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: stored.map { ($0.productID, $0.productType) }),
                       [Catalog.coins: .consumable, Catalog.season: .nonRenewable, Catalog.monthly: .autoRenewable])
        XCTAssertEqual(stored.first { $0.productID == Catalog.monthly }?.subscriptionGroupID, Catalog.group)
    }
}
