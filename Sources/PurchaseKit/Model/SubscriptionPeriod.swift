import Foundation

/// The length of one subscription or offer period, as Xcode and App Store
/// Connect write it: an ISO-8601 duration such as `P1M`, `P1W` or `P1Y`.
///
/// A period always lasts between one unit and ``Unit/maximumValue`` units (ten
/// years' worth), however it was made or decoded: the App Store's longest
/// period is a year, and a bound keeps date arithmetic over hostile or damaged
/// values from overflowing.
public struct SubscriptionPeriod: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The calendar unit a period counts.
    public enum Unit: String, Sendable, Hashable, Codable, CaseIterable {
        /// Days.
        case day
        /// Weeks.
        case week
        /// Calendar months.
        case month
        /// Calendar years.
        case year

        fileprivate var letter: Character {
            switch self {
            case .day: return "D"
            case .week: return "W"
            case .month: return "M"
            case .year: return "Y"
            }
        }

        /// The most units one period may count: ten years' worth. Nothing the
        /// App Store sells comes near it; anything beyond is damage or an attack.
        public var maximumValue: Int {
            switch self {
            case .day: return 3_653
            case .week: return 521
            case .month: return 120
            case .year: return 10
            }
        }

        /// The longest one unit can last on the Gregorian calendar in UTC, in seconds.
        fileprivate var longestSeconds: Double {
            switch self {
            case .day: return 86_400
            case .week: return 7 * 86_400
            case .month: return 31 * 86_400
            case .year: return 366 * 86_400
            }
        }
    }

    /// How many `unit`s the period lasts; always in `1...unit.maximumValue`.
    public let value: Int
    /// The calendar unit.
    public let unit: Unit

    /// The dates period arithmetic works on: from the year 1 to about the year
    /// 97,000. Foundation's calendar answers wrongly (even backwards) far outside
    /// them, so nothing is computed there.
    public static let supportedDates: ClosedRange<Date> =
        Date.distantPast...Date(timeIntervalSinceReferenceDate: 3_000_000_000_000)

    /// Creates a period of `value` units.
    ///
    /// - Throws: ``PurchaseKitError/Code/invalidConfiguration`` when `value`
    ///   is not positive or exceeds ``Unit/maximumValue``.
    public init(value: Int, unit: Unit) throws(PurchaseKitError) {
        guard value > 0 else {
            throw PurchaseKitError(
                .invalidConfiguration,
                "A subscription period must last at least one \(unit.rawValue); got \(value).",
                advice: "Give a positive number of units."
            )
        }
        guard value <= unit.maximumValue else {
            throw PurchaseKitError(
                .invalidConfiguration,
                "A subscription period may last at most \(unit.maximumValue) \(unit.rawValue)s; got \(value).",
                advice: "Use one of the App Store's durations, such as P1W, P1M or P1Y."
            )
        }
        self.value = value
        self.unit = unit
    }

    /// Parses an ISO-8601 period with a single component: `P3D`, `P1W`,
    /// `P1M`, `P6M`, `P1Y`. `P7D` stays seven days; it is not folded into a week.
    ///
    /// - Throws: ``PurchaseKitError/Code/invalidConfiguration`` naming the text.
    public init(iso8601 text: String) throws(PurchaseKitError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let shown = trimmed.count > 24 ? String(trimmed.prefix(24)) + "…" : trimmed
        let invalid = PurchaseKitError(
            .invalidConfiguration,
            "'\(shown)' is not a subscription period.",
            advice: "Write an ISO-8601 period with one component, such as P1W, P1M or P1Y."
        )
        guard trimmed.count >= 3, trimmed.first == "P", let letter = trimmed.last else { throw invalid }
        let digits = trimmed.dropFirst().dropLast()
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
              let value = Int(digits) else { throw invalid }
        guard let unit = Unit.allCases.first(where: { $0.letter == letter }) else { throw invalid }
        try self.init(value: value, unit: unit)
    }

    /// The ISO-8601 form, such as `P1M`.
    public var iso8601: String { "P\(value)\(unit.letter)" }

    public var description: String { iso8601 }

    /// The date `count` periods after `date`, on the Gregorian calendar in UTC,
    /// so that the answer does not depend on the device's settings. A count of
    /// zero gives `date` back.
    ///
    /// Never traps: the multiplication reports overflow, and an answer that
    /// would leave ``supportedDates``, or that the calendar gets wrong, is an error.
    ///
    /// - Throws: ``PurchaseKitError/Code/invalidConfiguration`` when `count` is
    ///   negative, `date` is outside ``supportedDates``, or the answer would be.
    public func date(after date: Date, count: Int = 1) throws(PurchaseKitError) -> Date {
        func outOfRange(_ why: String) -> PurchaseKitError {
            // Foundation traps when describing a date that is not finite: name it by its seconds then.
            let seconds = date.timeIntervalSinceReferenceDate
            let start = seconds.isFinite && Self.supportedDates.contains(date) ? "\(date)" : "\(seconds) s after 2001"
            return PurchaseKitError(
                .invalidConfiguration, "\(count) × \(iso8601) after \(start) cannot be computed: \(why).",
                advice: "Check the period, the count and the date they come from; a stored or configured value is out of range.")
        }
        guard count >= 0 else { throw outOfRange("the count is negative") }
        guard date.timeIntervalSinceReferenceDate.isFinite, Self.supportedDates.contains(date) else {
            throw outOfRange("the start is outside the supported dates")
        }
        if count == 0 { return date }
        let (units, overflow) = value.multipliedReportingOverflow(by: count)
        let longest = Double(units) * unit.longestSeconds
        guard !overflow, date.addingTimeInterval(longest) <= Self.supportedDates.upperBound else {
            throw outOfRange("the answer would be beyond the supported dates")
        }
        // `units` is now small enough (a few million days at most) that nothing below overflows.
        var components = DateComponents()
        switch unit {
        case .day: components.day = units
        case .week: components.day = 7 * units
        case .month: components.month = units
        case .year: components.year = units
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        guard let end = calendar.date(byAdding: components, to: date), end > date,
              end.timeIntervalSince(date) <= longest else {
            throw outOfRange("the calendar gave no answer later than the start")
        }
        return end
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(iso8601: text)
        } catch {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: error.message)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}
