import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
import XCTest

/// A store call that runs out of time ends the caller's call with a timeout
/// that says what did not answer and what the caller can do: nothing retries
/// a product load or a refund request for the caller.
final class StoreTimeoutMessageTests: XCTestCase {
    private func assertTellsTheCallerToTryAgain(_ error: PurchaseKitError?, file: StaticString = #filePath, line: UInt = #line) {
        guard let error else { return XCTFail("no error", file: file, line: line) }
        XCTAssertFalse(error.advice.contains("It is retried"), "nothing retries this call: \(error)", file: file, line: line)
        XCTAssertTrue(error.message.contains("store"), "say what did not answer: \(error)", file: file, line: line)
        XCTAssertTrue(error.advice.contains("try again") || error.advice.contains("Try again"), "\(error)", file: file, line: line)
    }

    func testAPurchaseWhoseProductDoesNotLoadInTimeIsNotRetriedForTheCaller() async throws {
        let world = World()
        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.products))
        let engine = try await world.engine(world.configuration(queue: stalling, storeTimeout: 60))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await stalling.waitForCalls(.products)
        world.clock.advance(by: 60)
        let error = await assertThrows(.timeout) { _ = try await call.value }
        assertTellsTheCallerToTryAgain(error)
        XCTAssertTrue(error?.advice.contains("Nothing was charged") ?? false, "\(String(describing: error))")
        gate.open()
        await engine.waitUntilIdle()
        let orders = await world.orders.loadOpenOrders().orders
        XCTAssertTrue(orders.isEmpty, "no order was made, and nothing will retry the call")
    }

    func testProductsThatDoNotLoadInTimeAreNotRetriedForTheCaller() async throws {
        let world = World()
        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.products))
        let engine = try await world.engine(world.configuration(queue: stalling, storeTimeout: 60))
        let call = Task { try await engine.products(for: [Catalog.coins]) }
        await stalling.waitForCalls(.products)
        world.clock.advance(by: 60)
        let error = await assertThrows(.timeout) { _ = try await call.value }
        assertTellsTheCallerToTryAgain(error)
        gate.open()
    }
}
