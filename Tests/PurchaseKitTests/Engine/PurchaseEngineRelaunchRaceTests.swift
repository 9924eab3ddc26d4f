import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
import XCTest

/// Two launches of one engine at once, and an engine shut down while its
/// work still runs next to the engine that replaced it on the same order
/// store: neither may move back an order the other moved on.
final class PurchaseEngineRelaunchRaceTests: XCTestCase {
    /// An engine shut down while its verifier call is out (the app relaunched
    /// the engine in the same process) gets the late answer after the next
    /// engine has delivered the order. Its copy of the order is stale: saving
    /// it once put the completed order back to `purchased` in the order store,
    /// and the user's paid coins left the balance.
    func testAShutDownEngineAnsweredLateDoesNotMoveBackWhatTheNextEngineDelivered() async throws {
        let world = World()
        let gate = Gate()
        let late = InterceptingVerifier(wrapping: world.server) { _ in
            await gate.pass()
            return .answer(.retryLater(reason: "the network went down"))
        }
        let first = try await world.engine(world.configuration(verifier: late))
        let call = Task { try await first.purchase(productID: Catalog.coins, user: "alice") }
        await gate.waitForArrivals(1) // paid, saved `purchased`, its verification out
        await first.shutdown()
        _ = try? await call.value

        let next = try await world.engine()
        let delivered = await world.orders.order(id: "order-1")
        XCTAssertEqual(delivered?.status, .completed, "the next engine delivered the replayed payment")

        gate.open() // the old engine's verifier answers now
        await first.waitUntilIdle()

        let stored = await world.orders.order(id: "order-1")
        XCTAssertEqual(stored?.status, .completed, "the shut-down engine saved nothing over the next engine's order")
        let balance = try await next.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 1)
        let credits = await world.creditCounts()
        XCTAssertEqual(Array(credits.values), [1])
    }
}
