import Foundation
import PurchaseKit

/// The values an App Store product can have, which a `.storekit` file is
/// checked against: a file is not trusted just because it parses. A value
/// outside them never reached a real user, and letting it in only moves the
/// failure later (an overflow at the first renewal, a renewal loop that never
/// ends). Checked against Xcode-written files from Apple's sample code and
/// other public projects, so that nothing real is refused.
enum AppStoreLimits {
    /// The durations of an auto-renewable subscription offered by App Store
    /// Connect: one week, one, two, three or six months, one year.
    static let renewalPeriods: Set<String> = ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"]

    /// The durations of an introductory (or other) offer period: a free trial
    /// may also last three days or two weeks; pay-as-you-go periods are the
    /// subscription's own durations.
    static let offerPeriods: Set<String> = ["P3D", "P1W", "P2W", "P1M", "P2M", "P3M", "P6M", "P1Y"]

    /// How many periods an offer may last: App Store Connect offers up to twelve.
    static let offerPeriodCounts: ClosedRange<Int> = 1...12

    /// The highest price accepted, in any currency. The App Store's top price
    /// points stay below this even in currencies with large units (IDR, VND, KRW).
    static let maximumPrice = Decimal(10_000_000_000)

    /// The longest price text read: enough for any real price, short enough
    /// that the decimal holds it exactly.
    static let maximumPriceLength = 24

    /// The ranks a subscription may have inside its group (1 is the highest level).
    static let groupLevels: ClosedRange<Int> = 1...10_000

    static func describe(_ periods: Set<String>) -> String {
        periods.sorted { order($0) < order($1) }.joined(separator: ", ")
    }

    private static func order(_ iso: String) -> Double {
        guard let period = try? SubscriptionPeriod(iso8601: iso) else { return .infinity }
        let days: Double
        switch period.unit {
        case .day: days = 1
        case .week: days = 7
        case .month: days = 30
        case .year: days = 365
        }
        return Double(period.value) * days
    }
}
