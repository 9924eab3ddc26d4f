import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// Renewal processing makes progress and stops, whatever the clock, the time
/// rate or the dates; and a real subscription still renews for years.
final class RenewalBoundsTests: XCTestCase {
    private var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    private func store(period: String, rate: StoreKitConfiguration.TimeRate = .realTime,
                       start: Date = ManualClock.defaultStart) async throws -> (SimulatedPaymentQueue, ManualClock, RecordingObserver) {
        let clock = ManualClock(start: start)
        let product = StoreProduct(id: "plus", type: .autoRenewable, displayName: "Plus", price: 1,
                              subscription: SubscriptionInfo(groupID: "g", period: try SubscriptionPeriod(iso8601: period)))
        let store = SimulatedPaymentQueue(products: [product], settings: .init(timeRate: rate), clock: clock)
        let observer = RecordingObserver()
        await store.attach(observer)
        return (store, clock, observer)
    }

    func testAMonthlySubscriptionRenewsEveryMonthForTwentyFiveYears() async throws {
        let start = utc.date(from: DateComponents(year: 2026, month: 1, day: 15, hour: 9))!
        let (store, clock, observer) = try await store(period: "P1M", start: start)
        try await store.add(Payment(productID: "plus", orderToken: "order-1", userID: "u"))
        let first = try XCTUnwrap(observer.updates.last?.transaction)
        observer.reset()

        clock.advance(by: 25 * 365.25 * 86_400)
        await store.processRenewals()
        let renewals = observer.updates.compactMap(\.transaction)
        XCTAssertEqual(renewals.count, 25 * 12)
        var previous = first
        for (index, renewal) in renewals.enumerated() {
            XCTAssertEqual(renewal.originalID, first.id)
            XCTAssertEqual(renewal.purchaseDate, previous.expirationDate)
            // Month after month, on the same day and time as the first purchase.
            let expected = utc.date(byAdding: .month, value: index + 2, to: start)
            XCTAssertEqual(renewal.expirationDate, expected, "renewal \(index)")
            previous = renewal
        }
        let status = try unwrapped(await store.subscriptionStatus(productID: "plus"))
        XCTAssertEqual(status.state, .subscribed)
        XCTAssertGreaterThan(status.expirationDate, clock.now)
    }

    func testAWeeklySubscriptionRenewsEveryWeekForTwentyYears() async throws {
        let (store, clock, observer) = try await store(period: "P1W")
        try await store.add(Payment(productID: "plus", orderToken: "order-1", userID: "u"))
        observer.reset()
        clock.advance(by: 20 * 365 * 86_400)
        await store.processRenewals()
        let renewals = observer.updates.compactMap(\.transaction)
        XCTAssertEqual(renewals.count, 20 * 365 / 7)
        for renewal in renewals {
            XCTAssertEqual(try XCTUnwrap(renewal.expirationDate).timeIntervalSince(renewal.purchaseDate), 7 * 86_400)
        }
    }

    func testAnAbsurdTimeRateRenewsAtMostTheBoundPerCallAndKeepsGoing() async throws {
        // One week per clock second: a day of clock time owes 86,400 renewals.
        let (store, clock, observer) = try await store(period: "P1W", rate: .init(factor: 7 * 86_400))
        try await store.add(Payment(productID: "plus", orderToken: "order-1", userID: "u"))
        observer.reset()
        clock.advance(by: 86_400)
        await store.processRenewals()
        let bound = SimulatedPaymentQueue.maximumRenewalsPerCall
        XCTAssertEqual(observer.updates.count, bound, "one call stops at the bound")
        await store.processRenewals()
        XCTAssertEqual(observer.updates.count, 2 * bound, "the next call continues where the last stopped")
        let expirations = observer.updates.compactMap(\.transaction?.expirationDate)
        XCTAssertEqual(expirations, expirations.sorted())
        XCTAssertEqual(Set(expirations).count, expirations.count, "every renewal moves time forward")
    }

    func testASubscriptionWhoseNextPeriodLeavesTheCalendarEndsInsteadOfSpinning() async throws {
        // Near the end of the dates the calendar computes correctly: a few yearly renewals fit, then none can.
        let nearTheEnd = SubscriptionPeriod.supportedDates.upperBound.addingTimeInterval(-5 * 366 * 86_400)
        let (store, clock, observer) = try await store(period: "P1Y", start: nearTheEnd)
        try await store.add(Payment(productID: "plus", orderToken: "order-1", userID: "u"))
        XCTAssertNotNil(observer.updates.last?.transaction?.expirationDate)
        observer.reset()
        clock.advance(by: 50 * 366 * 86_400)
        await store.processRenewals()
        let renewals = observer.updates.compactMap(\.transaction)
        XCTAssertGreaterThanOrEqual(renewals.count, 1)
        XCTAssertLessThanOrEqual(renewals.count, 5)
        let status = try unwrapped(await store.subscriptionStatus(productID: "plus"))
        XCTAssertEqual(status.state, .expired)
        XCTAssertFalse(status.willAutoRenew)
    }

    func testASubscriptionWhoseFirstPeriodCannotBeComputedIsNotCharged() async throws {
        let beyond = SubscriptionPeriod.supportedDates.upperBound.addingTimeInterval(86_400)
        let (store, _, observer) = try await store(period: "P1M", start: beyond)
        try await store.add(Payment(productID: "plus", orderToken: "order-1", userID: "u"))
        XCTAssertEqual(observer.kinds, [.purchasing, .failed(.paymentInvalid)])
        let transactions = await store.allTransactions()
        XCTAssertTrue(transactions.isEmpty, "nothing charged")
    }
}
