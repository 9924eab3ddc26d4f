import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// `finishPolicy: .manual`: the engine never finishes a delivered
/// transaction by itself; the app does, with `finish(orderID:)`. And what
/// the app's own calls on one order (`finish`, `retry`) answer.
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

    private struct UnreadableDisk: Error {}

    /// The app finishes a delivered order while the order store cannot read
    /// (a disk error). The finish went through and the order was archived,
    /// but the call read the order back from the store and threw the store's
    /// own error, untyped: the app took a finished transaction for one still
    /// to finish. A retry the same way.
    func testAFinishThatWentThroughAnswersTheOrderWhenTheStoreCannotReadIt() async throws {
        let world = World()
        let orders = InterceptingOrderStore(wrapping: world.orders)
        var configuration = world.configuration(store: orders)
        configuration.policies.finishPolicy = .manual
        let engine = try await world.engine(configuration)
        let order = try await engine.purchase(productID: Catalog.pro, user: "alice").order
        XCTAssertEqual(order.status, .delivered)

        orders.intercept { call in
            if case .orderWithID = call { return .fail(UnreadableDisk()) }
            return .proceed
        }
        do {
            let finished = try await engine.finish(orderID: order.id)
            XCTAssertEqual(finished.status, .completed)
            XCTAssertTrue(finished.isFinished)
        } catch {
            XCTFail("the finish went through, yet the call threw \(error)")
        }
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished, [])
    }

    /// A retry that delivers and archives the order answers it, however the
    /// store reads.
    func testARetryThatDeliveredAnswersTheOrderWhenTheStoreCannotReadIt() async throws {
        let world = World()
        let orders = InterceptingOrderStore(wrapping: world.orders)
        let engine = try await world.engine(world.configuration(store: orders))
        await world.server.failNext(1, with: .serverError(statusCode: 503))
        let order = try await engine.purchase(productID: Catalog.coins, user: "alice").order
        XCTAssertEqual(order.status, .purchased)

        orders.intercept { call in
            if case .orderWithID = call { return .fail(UnreadableDisk()) }
            return .proceed
        }
        do {
            let retried = try await engine.retry(orderID: order.id)
            XCTAssertEqual(retried.status, .completed)
        } catch {
            XCTFail("the retry delivered, yet the call threw \(error)")
        }
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.count, 1)
    }
}
