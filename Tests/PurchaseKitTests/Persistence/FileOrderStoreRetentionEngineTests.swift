import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Retention through the engine, set up as the integration guide does: the
/// file store keeps its own clock, apart from the engine's. Whatever the store
/// compacts, what the user paid for stays theirs.
final class FileOrderStoreRetentionEngineTests: XCTestCase {
    private let day: TimeInterval = 86_400

    func testPurchasesOutliveTheArchiveRetentionAcrossARelaunch() async throws {
        let world = World()
        let storeClock = ManualClock(start: world.clock.now)
        let directory = try makeTemporaryDirectory(self)
        func fileStore() throws -> FileOrderStore {
            try FileOrderStore(directory: directory, configuration: .init(clock: storeClock))
        }

        let engine = try await world.engine(world.configuration(store: try fileStore()))
        let lifetime = try await engine.purchase(productID: Catalog.pro, user: "alice").order
        let coins = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: 2).order
        let monthly = try await engine.purchase(productID: Catalog.monthly, user: "alice").order
        await engine.waitUntilIdle()
        let receipts = [lifetime, coins, monthly].compactMap { $0.transaction?.receipt.base64EncodedString() }
        XCTAssertEqual(receipts.count, 3)
        XCTAssertTrue(receipts.allSatisfy { !$0.isEmpty })
        XCTAssertEqual(names(in: directory, "archive").count, 3, "the engine archived the finished orders")
        XCTAssertTrue(receipts.allSatisfy { onDisk($0, in: directory) }, "the receipts are on disk while archived")

        // Thirty-one days later, on both clocks; nobody is logged in yet at this launch.
        world.clock.advance(by: 31 * day)
        storeClock.advance(by: 31 * day)
        let relaunched = try PurchaseEngine(configuration: world.configuration(store: try fileStore()))
        let report = try await relaunched.start()
        await relaunched.waitUntilIdle()
        XCTAssertEqual(report.problems, [])
        XCTAssertEqual(names(in: directory, "archive"), [], "compacted past the retention")
        XCTAssertFalse(receipts.contains { onDisk($0, in: directory) }, "the receipts are gone from disk")

        // The renewal finds its subscription's first order, compacted, and credits its user.
        await world.store.processRenewals()
        await relaunched.waitUntilIdle()
        let entitlements = try await relaunched.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.monthly, Catalog.pro])
        XCTAssertEqual(entitlements.first { $0.productID == Catalog.pro }?.orderID, lifetime.id)
        let balance = try await relaunched.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 2])
        let history = try await fileStore().orders(forUser: "alice")
        let renewals = history.filter { $0.source == .renewal }
        XCTAssertEqual(renewals.count, 1)
        XCTAssertEqual(renewals.first?.status, .completed)
        XCTAssertEqual(renewals.first?.transaction?.originalID, monthly.transaction?.originalID)
        let stuck = await relaunched.openOrders()
        XCTAssertEqual(stuck, [], "nothing needs attention")
        let credits = await world.creditCounts()
        XCTAssertEqual(credits.count, 4)
        XCTAssertTrue(credits.values.allSatisfy { $0 == 1 })

        // The compacted orders still resolve by token for a late payment.
        for order in [lifetime, coins, monthly] {
            let byToken = try await fileStore().order(token: try XCTUnwrap(order.token))
            XCTAssertEqual(byToken?.id, order.id)
            XCTAssertEqual(byToken?.transaction?.receipt, Data())
        }
    }

    /// Whether any file holds `text` (as JSON writes it: a slash may be escaped).
    private func onDisk(_ text: String, in directory: URL) -> Bool {
        let needles = [Data(text.utf8), Data(text.replacingOccurrences(of: "/", with: "\\/").utf8)]
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if let data = try? Data(contentsOf: url), needles.contains(where: { data.range(of: $0) != nil }) { return true }
        }
        return false
    }
}
