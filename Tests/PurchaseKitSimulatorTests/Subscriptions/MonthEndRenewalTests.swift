import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// Renewals at the ends of months and years keep the subscription's billing
/// day: one begun on the 31st renews on the last day of shorter months, then
/// on the 31st again, rather than drifting to the 28th for good.
final class MonthEndRenewalTests: XCTestCase {
    private var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    private func product(_ period: String, intro: String? = nil) throws -> StoreProduct {
        StoreProduct(id: "plus", type: .autoRenewable, displayName: "Plus", price: 1,
                     subscription: SubscriptionInfo(
                        groupID: "g", period: try SubscriptionPeriod(iso8601: period),
                        introductoryOffer: try intro.map { IntroductoryOffer(paymentMode: .freeTrial, period: try SubscriptionPeriod(iso8601: $0)) }))
    }

    /// A store selling `product`, subscribed to it at `start`, and the first transaction's expiration.
    private func subscribed(_ product: StoreProduct, at start: Date,
                            rate: StoreKitConfiguration.TimeRate = .realTime) async throws
        -> (SimulatedPaymentQueue, ManualClock, RecordingObserver, Date) {
        let clock = ManualClock(start: start)
        let store = SimulatedPaymentQueue(products: [product], settings: .init(timeRate: rate), clock: clock)
        let observer = RecordingObserver()
        await store.attach(observer)
        try await store.add(Payment(productID: "plus", orderToken: "order-1", userID: "u"))
        let first = try XCTUnwrap(observer.updates.last?.transaction?.expirationDate)
        observer.reset()
        return (store, clock, observer, first)
    }

    /// Moves the clock to `date`, lets the store renew, and answers the
    /// expiration dates of the renewals it made, oldest first.
    private func renewals(_ store: SimulatedPaymentQueue, _ clock: ManualClock, _ observer: RecordingObserver,
                          until date: Date) async -> [Date] {
        clock.advance(to: date)
        await store.processRenewals()
        return observer.updates.compactMap(\.transaction?.expirationDate)
    }

    func testAMonthlySubscriptionBegunOnThe31stKeepsItsBillingDay() async throws {
        let start = utc.date(from: DateComponents(year: 2026, month: 1, day: 31, hour: 9))!
        let (store, clock, observer, _) = try await subscribed(try product("P1M"), at: start)
        let expirations = await renewals(store, clock, observer, until: utc.date(byAdding: .month, value: 12, to: start)!)
        let expected = (2...13).map { utc.date(byAdding: .month, value: $0, to: start)! }
        XCTAssertEqual(expirations, expected, "Feb 28, then Mar 31, Apr 30, May 31...")
    }

    func testAYearlySubscriptionBegunOnTheLeapDayRenewsOnItAgainInTheNextLeapYear() async throws {
        let start = utc.date(from: DateComponents(year: 2028, month: 2, day: 29, hour: 12))!
        let (store, clock, observer, _) = try await subscribed(try product("P1Y"), at: start)
        let expirations = await renewals(store, clock, observer, until: utc.date(byAdding: .year, value: 4, to: start)!)
        let expected = (2...5).map { utc.date(byAdding: .year, value: $0, to: start)! }
        XCTAssertEqual(expirations, expected)
        XCTAssertEqual(expirations.map { utc.component(.day, from: $0) }, [28, 28, 29, 28], "2032 is a leap year")
    }

    func testAfterAnIntroductoryWeekTheBillingDayIsTheWeeksEnd() async throws {
        // A free week from Jan 24 ends on Jan 31: monthly billing on the 31st from then on.
        let start = utc.date(from: DateComponents(year: 2026, month: 1, day: 24, hour: 9))!
        let (store, clock, observer, trialEnd) = try await subscribed(try product("P1M", intro: "P1W"), at: start)
        XCTAssertEqual(utc.component(.day, from: trialEnd), 31)
        let expirations = await renewals(store, clock, observer, until: utc.date(byAdding: .month, value: 5, to: trialEnd)!)
        let expected = (1...6).map { utc.date(byAdding: .month, value: $0, to: trialEnd)! }
        XCTAssertEqual(expirations, expected)
    }

    func testAtAFastTimeRateTheSimulatedCalendarKeepsTheBillingDayToo() async throws {
        // One simulated day per clock second (Xcode's rate 6): a year passes in 365 seconds.
        let start = utc.date(from: DateComponents(year: 2026, month: 1, day: 31, hour: 12))!
        let (store, clock, observer, _) = try await subscribed(try product("P1M"), at: start, rate: .init(xcodeRawValue: 6))
        let simulated = await renewals(store, clock, observer, until: start.addingTimeInterval(366)).map {
            start.addingTimeInterval($0.timeIntervalSince(start) * 86_400)
        }
        let days = simulated.map { utc.component(.day, from: $0) }
        XCTAssertEqual(days, [31, 30, 31, 30, 31, 31, 30, 31, 30, 31, 31, 28], "March 2026 to February 2027")
    }
}
