import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// The customer info stream: the current value first, then a new value for
/// every change — a purchase, a spend, a refund, a non-renewing subscription
/// running out as the clock passes its end — and what a refresh learns.
final class CustomerInfoUpdatesTests: XCTestCase {
    private let day = try! SubscriptionPeriod(iso8601: "P1D")

    func testTheStreamYieldsTheCurrentValueThenEveryChange() async throws {
        let world = World()
        var configuration = world.configuration()
        configuration.policies.nonRenewingDurations = [Catalog.season: day]
        let engine = try await world.engine(configuration)
        _ = try await engine.purchase(productID: Catalog.pro, user: "alice")
        await engine.waitUntilIdle()

        var updates = await engine.customerInfoUpdates(user: "alice").makeAsyncIterator()
        let first = try await XCTUnwrapAsync(await updates.next())
        XCTAssertEqual(first.entitlements.map(\.productID), [Catalog.pro], "the current value comes first")
        XCTAssertEqual(first.consumableBalances, [:])
        await engine.waitUntilIdle()

        _ = try await engine.purchase(productID: Catalog.coins, user: "alice", quantity: 4)
        await engine.waitUntilIdle()
        let bought = try await next(&updates) { $0.consumableBalances[Catalog.coins] == 4 }
        XCTAssertEqual(bought.entitlements.map(\.productID), [Catalog.pro])

        try await engine.spend(3, of: Catalog.coins, user: "alice", spendID: "spend")
        await engine.waitUntilIdle()
        let spent = try await next(&updates) { $0.consumableBalances[Catalog.coins] != 4 }
        XCTAssertEqual(spent.consumableBalances[Catalog.coins], 1)

        let transactions = await world.store.allTransactions()
        let pro = try XCTUnwrap(transactions.first { $0.productID == Catalog.pro })
        try await world.store.refund(transactionID: pro.id)
        await engine.waitUntilIdle()
        // The engine is idle: it has published every value the refund
        // changed. Unless the entitlement is gone now, no new value is coming,
        // and waiting for one would never end.
        let afterRefund = try await engine.customerInfo(user: "alice")
        guard !afterRefund.isEntitled(to: Catalog.pro) else {
            return XCTFail("the refund left the entitlement: \(afterRefund.entitlements.map(\.productID))")
        }
        let refunded = try await next(&updates) { !$0.isEntitled(to: Catalog.pro) }
        XCTAssertEqual(refunded.consumableBalances[Catalog.coins], 1)

        _ = try await engine.purchase(productID: Catalog.season, user: "alice")
        await engine.waitUntilIdle()
        let season = try await next(&updates) { $0.isEntitled(to: Catalog.season) }
        let end = try XCTUnwrap(season.nonRenewingSubscriptions[Catalog.season]?.expirationDate)

        // Nothing happens but time: the engine's clock passing the end is a change.
        world.clock.advance(to: end)
        await engine.waitUntilIdle()
        let expired = try await next(&updates) { !$0.isEntitled(to: Catalog.season) }
        XCTAssertEqual(expired.nonRenewingSubscriptions[Catalog.season]?.isActive, false)
    }

    func testTheStreamLearnsHowASubscriptionRenewsFromTheStore() async throws {
        let world = World()
        let engine = try await world.engine(world.configuration())
        _ = try await engine.purchase(productID: Catalog.monthly, user: "alice")
        await engine.waitUntilIdle()
        var updates = await engine.customerInfoUpdates(user: "alice").makeAsyncIterator()
        // The first value may come before the store answered; the stream starts a refresh.
        let known = try await next(&updates) { $0.subscriptions[Catalog.group]?.willAutoRenew != nil }
        XCTAssertEqual(known.subscriptions[Catalog.group]?.willAutoRenew, true)

        try await world.store.cancelSubscription(productID: Catalog.monthly)
        try await engine.refreshCustomerInfo(user: "alice")
        let cancelled = try await next(&updates) { $0.subscriptions[Catalog.group]?.willAutoRenew == false }
        XCTAssertEqual(cancelled.subscriptions[Catalog.group]?.status, .subscribed)
    }

    func testEachSubscriberGetsTheValuesOfItsOwnUser() async throws {
        let world = World()
        let engine = try await world.engine(world.configuration())
        var alice = await engine.customerInfoUpdates(user: "alice").makeAsyncIterator()
        var bob = await engine.customerInfoUpdates(user: "bob").makeAsyncIterator()
        _ = try await engine.purchase(productID: Catalog.coins, user: "bob", quantity: 2)
        await engine.waitUntilIdle()
        let bobs = try await next(&bob) { $0.consumableBalances[Catalog.coins] == 2 }
        XCTAssertEqual(bobs.userID, "bob")
        let alices = try await XCTUnwrapAsync(await alice.next())
        XCTAssertEqual(alices.userID, "alice")
        XCTAssertEqual(alices.consumableBalances, [:])
    }

    func testShutdownFinishesTheStream() async throws {
        let world = World()
        let engine = try await world.engine(world.configuration())
        let updates = await engine.customerInfoUpdates(user: "alice")
        await engine.waitUntilIdle()
        await engine.shutdown()
        var values = 0
        for await _ in updates { values += 1 }
        XCTAssertEqual(values, 1, "the current value, then the end")
        var late = await engine.customerInfoUpdates(user: "alice").makeAsyncIterator()
        let none = await late.next()
        XCTAssertNil(none, "a stream asked for after shutdown ends at once")
    }

    /// The next value that satisfies `predicate`; values in between must each differ from the one before.
    private func next(_ iterator: inout AsyncStream<CustomerInfo>.Iterator, limit: Int = 10,
                      where predicate: (CustomerInfo) -> Bool) async throws -> CustomerInfo {
        var previous: CustomerInfo?
        for _ in 0..<limit {
            guard let value = await iterator.next() else { break }
            XCTAssertNotEqual(value, previous, "an unchanged value was repeated")
            if predicate(value) { return value }
            previous = value
        }
        XCTFail("no matching value in \(limit) updates")
        throw CancellationError()
    }

    private func XCTUnwrapAsync<T>(_ value: T?) async throws -> T {
        try XCTUnwrap(value)
    }
}
