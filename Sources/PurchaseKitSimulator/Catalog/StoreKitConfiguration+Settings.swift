import Foundation

extension StoreKitConfiguration {
    /// The `settings` of a StoreKit configuration: how the simulated store behaves by default.
    public struct Settings: Sendable, Hashable, Codable {
        /// `_askToBuyEnabled`: every purchase waits for a parent's approval.
        public var askToBuyEnabled: Bool
        /// `_failTransactionsEnabled`: every purchase fails.
        public var failTransactionsEnabled: Bool
        /// `_billingIssuesEnabled` / `_renewalBillingIssuesEnabled`: renewals
        /// fail to bill and subscriptions enter billing retry.
        public var billingIssuesEnabled: Bool
        /// `_billingGracePeriodEnabled`: a failed renewal first enters a grace
        /// period, keeping the subscriber's access.
        public var billingGracePeriodEnabled: Bool
        /// `_timeRate`: how fast subscription time runs.
        public var timeRate: TimeRate
        /// `_locale`, such as `en_US`.
        public var locale: String?
        /// `_storefront`, an ISO 3166-1 alpha-3 code such as `USA`.
        public var storefront: String?
        /// `_storeKitErrors`: the errors Xcode would inject, by API.
        public var storeKitErrors: [StoreKitErrorSetting]

        public init(
            askToBuyEnabled: Bool = false,
            failTransactionsEnabled: Bool = false,
            billingIssuesEnabled: Bool = false,
            billingGracePeriodEnabled: Bool = false,
            timeRate: TimeRate = .realTime,
            locale: String? = nil,
            storefront: String? = nil,
            storeKitErrors: [StoreKitErrorSetting] = []
        ) {
            self.askToBuyEnabled = askToBuyEnabled
            self.failTransactionsEnabled = failTransactionsEnabled
            self.billingIssuesEnabled = billingIssuesEnabled
            self.billingGracePeriodEnabled = billingGracePeriodEnabled
            self.timeRate = timeRate
            self.locale = locale
            self.storefront = storefront
            self.storeKitErrors = storeKitErrors
        }

        /// Whether the error injection named `name` (such as `Load Products`
        /// or `Purchase`) is switched on.
        public func isErrorEnabled(_ name: String) -> Bool {
            storeKitErrors.contains { $0.enabled && $0.name.caseInsensitiveCompare(name) == .orderedSame }
        }

        /// The ISO-4217 currency of a storefront; USD when unknown. Xcode files
        /// carry no currency, only the storefront.
        static func currencyCode(forStorefront storefront: String?) -> String {
            switch storefront?.uppercased() {
            case "GBR": return "GBP"
            case "JPN": return "JPY"
            case "CAN": return "CAD"
            case "AUS": return "AUD"
            case "CHE": return "CHF"
            case "CHN": return "CNY"
            case "DEU", "FRA", "ITA", "ESP", "NLD", "BEL", "AUT", "IRL", "FIN", "PRT", "GRC": return "EUR"
            default: return "USD"
            }
        }
    }

    /// One entry of `_storeKitErrors`: an API (`name`) and the error Xcode injects into it.
    public struct StoreKitErrorSetting: Sendable, Hashable, Codable {
        /// The API, such as `Load Products`, `Purchase` or `Verification`.
        public var name: String
        /// Whether the injection is on.
        public var enabled: Bool
        /// The chosen error, as Xcode names it, when one is chosen.
        public var current: String?

        public init(name: String, enabled: Bool, current: String? = nil) {
            self.name = name
            self.enabled = enabled
            self.current = current
        }
    }

    /// How fast subscription time runs compared with the clock, as Xcode's
    /// `_timeRate` (the raw value of `SKTestSession.TimeRate`).
    ///
    /// | raw | Xcode's name | factor |
    /// |---|---|---|
    /// | 0 | real time | 1 |
    /// | 1 | one hour is one day | 24 |
    /// | 2 | thirty minutes is one day | 48 |
    /// | 3 | five minutes is one day | 288 |
    /// | 4 | one minute is one day | 1,440 |
    /// | 5 | thirty seconds is one day | 2,880 |
    /// | 6 | one second is one day | 86,400 |
    /// | 10 | monthly renewal every hour | 720 |
    /// | 11 | monthly renewal every thirty minutes | 1,440 |
    /// | 12 | monthly renewal every fifteen minutes | 2,880 |
    /// | 13 | monthly renewal every five minutes | 8,640 |
    /// | 15 | monthly renewal every thirty seconds | 86,400 |
    ///
    /// A month counts as thirty days. Other raw values (Xcode's fixed
    /// "one renewal every …" rates have no stable number in the files we
    /// checked) run in real time, and keep their raw value.
    public struct TimeRate: Sendable, Hashable, Codable, CustomStringConvertible {
        /// Xcode's raw value, or nil for a rate made in code.
        public let rawValue: Int?
        /// How many simulated seconds pass per second of the clock; at least 1.
        public let factor: Double

        /// Subscriptions renew in real time.
        public static let realTime = TimeRate(rawValue: nil, factor: 1)

        /// Xcode's rate with this raw value; unknown values run in real time.
        public init(xcodeRawValue raw: Int) {
            let known: [Int: Double] = [
                0: 1, 1: 24, 2: 48, 3: 288, 4: 1_440, 5: 2_880, 6: 86_400,
                10: 720, 11: 1_440, 12: 2_880, 13: 8_640, 15: 86_400,
            ]
            self.init(rawValue: raw, factor: known[raw] ?? 1)
        }

        /// A rate made in code: `factor` simulated seconds per clock second (1 or more).
        public init(factor: Double) {
            self.init(rawValue: nil, factor: factor)
        }

        private init(rawValue: Int?, factor: Double) {
            self.rawValue = rawValue
            self.factor = factor.isFinite ? max(1, factor) : 1
        }

        /// Whether the raw value is one this mapping knows.
        public var isKnown: Bool { rawValue.map { [0, 1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 15].contains($0) } ?? true }

        public var description: String {
            rawValue.map { "TimeRate(xcode: \($0), factor: \(factor))" } ?? "TimeRate(factor: \(factor))"
        }
    }
}
