import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// `finishPolicy: .manual`: the engine never finishes a delivered
/// transaction by itself; the app does, with `finish(orderID:)`.
final class ManualFinishTests: XCTestCase {
    private func manualEngine(_ world: World) async throws -> PurchaseEngine {
        var configuration = world.configuration()
        configuration.policies.finishPolicy = .manual
        return try await world.engine(configuration)
    }

    /// A manual retry of a delivered order (a support screen retrying every
    /// order it lists) finished the transaction the app had not finished yet:
    /// the order went `completed` before the app had shown the content.
    func testARetryOfADeliveredOrderLeavesTheFinishToTheApp() async throws {
        let world = World()
        let engine = try await manualEngine(world)
        let order = try await engine.purchase(productID: Catalog.pro, user: "alice").order
        XCTAssertEqual(order.status, .delivered)

        let retried = try await engine.retry(orderID: order.id)
        await engine.waitUntilIdle()
        XCTAssertEqual(retried.status, .delivered, "the app finishes it, not a retry")
        var unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished.map(\.id), [order.transactionID].compactMap { $0 })

        let finished = try await engine.finish(orderID: order.id)
        XCTAssertEqual(finished.status, .completed)
        unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished, [])
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.count, 1)
    }
}
