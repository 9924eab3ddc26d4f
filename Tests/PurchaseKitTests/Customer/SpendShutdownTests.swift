import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// A spend under way when its engine shuts down records nothing: the next
/// engine on the same order store owns the balance, and spends of one user
/// run one at a time only within one engine.
final class SpendShutdownTests: XCTestCase {
    func testASpendUnderWayAtShutdownRecordsNothingAndTheNextEnginesSpendStands() async throws {
        let world = World()
        let held = Locked(false)
        let (released, release) = AsyncStream<Void>.makeStream()
        let intercepting = InterceptingOrderStore(wrapping: world.orders) { call in
            // The old engine's spend stops while it reads alice's orders.
            if case .orders(userID: "alice") = call, held.withLock({ $0 }) {
                for await _ in released { break }
            }
            return .proceed
        }
        let old = try await world.engine(world.configuration(store: intercepting))
        _ = try await old.purchase(productID: Catalog.coins, user: "alice", quantity: 5)
        await old.waitUntilIdle()

        held.withLock { $0 = true }
        intercepting.clearCalls()
        let underWay = Task { try await old.spend(3, of: Catalog.coins, user: "alice", spendID: "old-engine") }
        await intercepting.waitForCalls(.orders)
        await old.shutdown()
        held.withLock { $0 = false }

        let next = try await world.engine()
        let spend = try await next.spend(3, of: Catalog.coins, user: "alice", spendID: "next-engine")
        XCTAssertEqual(spend.balanceAfter, 2)
        release.yield()
        release.finish()
        do {
            let late = try await underWay.value
            XCTFail("a spend of a shut-down engine was recorded: \(late)")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .engineShutDown)
        }
        let spends = try await next.spends(user: "alice")
        XCTAssertEqual(spends.map(\.id), ["next-engine"], "5 units cannot pay for two spends of 3")
        let balance = try await next.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 2)
    }
}
