import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// What a purchase call still waiting hears when its payment expires: the
/// store never answered, so the payment may still complete and be delivered.
final class PaymentExpiryAnswerTests: XCTestCase {
    func testACallStillWaitingWhenItsPaymentExpiresHearsPendingNotRefused() async throws {
        let world = World()
        let gate = Gate()
        let stalling = InterceptingPaymentQueue(wrapping: world.store, hook: gate.holding(.add))
        var configuration = world.configuration(queue: stalling) // no store timeout: the call waits
        configuration.limits.paymentExpiry = 3600
        let engine = try await world.engine(configuration)
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await stalling.waitForCalls(.add)
        world.clock.advance(by: 3600)
        let result: PurchaseResult
        do {
            result = try await call.value
        } catch let error as PurchaseKitError {
            return XCTFail("the store refused nothing, yet the call heard \(error.code) (\(error.message))")
        }
        guard case .pending(let order, .storeTimeout) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(order.status, .failed)
        XCTAssertEqual(order.lastErrorCode, .timeout)

        // The store answers late: the payment is delivered to alice after all.
        gate.open()
        await engine.waitUntilIdle()
        let credits = await world.server.credits(forUser: "alice")
        XCTAssertEqual(credits.count, 1)
    }
}
