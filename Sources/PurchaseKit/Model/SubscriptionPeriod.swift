import Foundation

/// The length of one subscription or offer period, as Xcode and App Store
/// Connect write it: an ISO-8601 duration such as `P1M`, `P1W` or `P1Y`.
public struct SubscriptionPeriod: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The calendar unit a period counts.
    public enum Unit: String, Sendable, Hashable, Codable, CaseIterable {
        case day
        case week
        case month
        case year

        fileprivate var letter: Character {
            switch self {
            case .day: return "D"
            case .week: return "W"
            case .month: return "M"
            case .year: return "Y"
            }
        }
    }

    /// How many `unit`s the period lasts; always at least 1.
    public let value: Int
    /// The calendar unit.
    public let unit: Unit

    /// Creates a period of `value` units.
    ///
    /// - Throws: ``PurchaseKitError/Code/invalidConfiguration`` when `value`
    ///   is not positive.
    public init(value: Int, unit: Unit) throws(PurchaseKitError) {
        guard value > 0 else {
            throw PurchaseKitError(
                .invalidConfiguration,
                "A subscription period must last at least one \(unit.rawValue); got \(value).",
                advice: "Give a positive number of units."
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
        let invalid = PurchaseKitError(
            .invalidConfiguration,
            "'\(trimmed)' is not a subscription period.",
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
    /// so that the answer does not depend on the device's settings.
    public func date(after date: Date, count: Int = 1) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        var components = DateComponents()
        switch unit {
        case .day: components.day = value * count
        case .week: components.day = 7 * value * count
        case .month: components.month = value * count
        case .year: components.year = value * count
        }
        return calendar.date(byAdding: components, to: date) ?? date
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
