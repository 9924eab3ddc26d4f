#if !canImport(StoreKit)
import Foundation

// Transcribed from Apple's published StoreKit interface:
// `Product.SubscriptionPeriod`, `Product.SubscriptionPeriod.Unit`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product {

    /// Represents the duration of time between subscription renewals.
    public struct SubscriptionPeriod : Equatable, Hashable {

        /// A unit of time.
        public enum Unit : Equatable, Hashable {

            case day

            case week

            case month

            case year
        }

        /// The unit of time that this period represents.
        public let unit: Product.SubscriptionPeriod.Unit

        /// The number of units that the period represents.
        public let value: Int
    }
}

// Transcribed from Apple's published StoreKit interface:
// `Product.SubscriptionInfo` (introductoryOffer, subscriptionGroupID,
// subscriptionPeriod).
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product {

    /// Properties and functionality specific to auto-renewable subscriptions.
    public struct SubscriptionInfo : Equatable, Hashable {

        /// An optional introductory offer that will automatically be applied if the user is eligible.
        public let introductoryOffer: Product.SubscriptionOffer?

        /// The group identifier for this subscription.
        public let subscriptionGroupID: String

        /// The duration that this subscription lasts before auto-renewing.
        public let subscriptionPeriod: Product.SubscriptionPeriod

        /// The level behind `groupLevel` (not Apple's API).
        @usableFromInline package let scriptedGroupLevel: Int
    }
}

// Transcribed from Apple's published StoreKit interface:
// `Product.SubscriptionInfo.groupLevel`.
@available(iOS 16.4, macOS 13.3, tvOS 16.4, watchOS 9.4, *)
extension Product.SubscriptionInfo {

    /// The level of this subscription relative to other subscriptions in the same group.
    ///
    /// - Important: When using `groupLevel` on systems earlier than iOS 17.0, macOS 14.0,
    ///              tvOS 17.0 or watchOS 10.0, the property may return a sentinel value of 0 in some
    ///              uncommon cases: (1) StoreKit Testing in Xcode (workaround: test your app on a
    ///              device running a more recent OS) or (2) a critical server error.
    @available(iOS 16.4, macOS 13.3, tvOS 16.4, watchOS 9.4, visionOS 1.0, *)
    @backDeployed(before: iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0)
    public var groupLevel: Int { scriptedGroupLevel }
}

// Transcribed from Apple's published StoreKit interface:
// `Product.SubscriptionOffer`, `Product.SubscriptionOffer.PaymentMode`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product {

    /// Information about a subscription offer configured in App Store Connect.
    public struct SubscriptionOffer : Equatable, Hashable {

        public struct PaymentMode : RawRepresentable, Equatable, Hashable {

            public let rawValue: String

            public init(rawValue: String) { self.rawValue = rawValue }

            public static let payAsYouGo = Product.SubscriptionOffer.PaymentMode(rawValue: "PAY_AS_YOU_GO")

            public static let payUpFront = Product.SubscriptionOffer.PaymentMode(rawValue: "PAY_UP_FRONT")

            public static let freeTrial = Product.SubscriptionOffer.PaymentMode(rawValue: "FREE_TRIAL")

            @available(iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, macOS 12.0, *)
            public typealias RawValue = String
        }

        /// The discounted price that the offer provides in local currency.
        ///
        /// This is the price per period in the case of `.payAsYouGo`
        public let price: Decimal

        /// A localized string representation of `price`.
        public let displayPrice: String

        /// The duration that this offer lasts before auto-renewing or changing to standard subscription
        /// renewals.
        public let period: Product.SubscriptionPeriod

        /// The number of periods this offer will renew for.
        ///
        /// Always 1 except for `.payAsYouGo`.
        public let periodCount: Int

        /// How the user is charged for this offer.
        public let paymentMode: Product.SubscriptionOffer.PaymentMode
    }
}

// Transcribed from Apple's published StoreKit interface: the `Sendable`
// conformances of `Product.SubscriptionPeriod`, `Product.SubscriptionPeriod.Unit`,
// `Product.SubscriptionInfo`, `Product.SubscriptionOffer` and
// `Product.SubscriptionOffer.PaymentMode`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.SubscriptionPeriod : Sendable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.SubscriptionPeriod.Unit : Sendable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.SubscriptionInfo : Sendable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.SubscriptionOffer : Sendable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.SubscriptionOffer.PaymentMode : Sendable {
}
#endif
