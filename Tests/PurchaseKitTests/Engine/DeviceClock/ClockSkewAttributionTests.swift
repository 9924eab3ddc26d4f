import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// A payment whose token the store lost is matched to its order by product
/// and time, with the order's times read on the phone's clock and the
/// transaction's on the store's. A phone whose date the user set forward or
/// back must never send that payment to whoever happens to be logged in.
final class ClockSkewAttributionTests: XCTestCase {
    func testATokenlessPaymentOnAPhoneAnHourAheadIsNeverCreditedToTheLoggedInUser() async throws {
        try await assertTokenlessPaymentNeverGoesToCarol(deviceOffset: 3600)
    }

    func testATokenlessPaymentOnAPhoneAYearBehindIsNeverCreditedToTheLoggedInUser() async throws {
        try await assertTokenlessPaymentNeverGoesToCarol(deviceOffset: -365 * 24 * 3600)
    }

    func testATokenlessPaymentOnAPhoneWhoseClockIsRightIsCreditedToItsBuyer() async throws {
        let world = try await assertTokenlessPaymentNeverGoesToCarol(deviceOffset: 0)
        let aliceCredits = await world.server.credits(forUser: "alice")
        XCTAssertEqual(aliceCredits.count, 1, "matched to alice's order by product and time")
    }

    /// Alice buys coins on a phone where carol is the logged-in user; the store
    /// loses the payment's token and reports it late, after alice's call stopped
    /// waiting. Carol paid nothing: the coins are alice's, or wait for the app.
    @discardableResult
    private func assertTokenlessPaymentNeverGoesToCarol(deviceOffset: TimeInterval,
                                                        file: StaticString = #filePath, line: UInt = #line) async throws -> World {
        let world = World()
        let device = DeviceClock(world: world.clock, offset: deviceOffset)
        var configuration = world.configuration(storeTimeout: 60)
        configuration.clock = device
        let engine = try await world.engine(configuration)
        await engine.setCurrentUser("carol")
        await world.store.setHoldsUpdates(true)
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await world.store.waitForPayments(count: 1)
        await engine.waitUntilIdle()
        world.clock.advance(by: 60)
        await engine.waitUntilIdle()
        guard case .pending(_, .storeTimeout) = try await call.value else {
            XCTFail("alice's call answers at the timeout", file: file, line: line)
            return world
        }

        await world.store.setHoldsUpdates(false)
        await world.store.releaseHeldUpdates(order: .asProduced)
        await engine.waitUntilIdle()
        let carolCredits = await world.server.credits(forUser: "carol")
        XCTAssertTrue(carolCredits.isEmpty, "carol paid nothing, yet was credited alice's coins", file: file, line: line)
        let carolBalance = try await engine.consumableBalance(user: "carol")
        XCTAssertEqual(carolBalance, [:], file: file, line: line)
        let allCredits = await world.server.allCredits
        XCTAssertLessThanOrEqual(allCredits.count, 1, "one payment, credited once at most", file: file, line: line)
        if allCredits.isEmpty {
            let flagged = await engine.openOrders().filter { $0.status == .needsAttention }
            XCTAssertEqual(flagged.map(\.userID), [""], "the paid coins wait for the app to assign them", file: file, line: line)
        }
        return world
    }
}
