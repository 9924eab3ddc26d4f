#if !canImport(StoreKit)
import Foundation

// Transcribed from Apple's published StoreKit interface:
// `Product.SubscriptionInfo.RenewalState`, `Product.SubscriptionInfo.RenewalInfo`
// (originalTransactionID, willAutoRenew, isInBillingRetry,
// gracePeriodExpirationDate), `Product.SubscriptionInfo.Status`,
// `Product.SubscriptionInfo.status(for:)`,
// `Product.SubscriptionInfo.isEligibleForIntroOffer(for:)`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.SubscriptionInfo {

    public struct RenewalState : RawRepresentable, Equatable, Hashable {

        public let rawValue: Int

        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let subscribed = Product.SubscriptionInfo.RenewalState(rawValue: 1)

        public static let expired = Product.SubscriptionInfo.RenewalState(rawValue: 2)

        public static let inBillingRetryPeriod = Product.SubscriptionInfo.RenewalState(rawValue: 3)

        public static let inGracePeriod = Product.SubscriptionInfo.RenewalState(rawValue: 4)

        public static let revoked = Product.SubscriptionInfo.RenewalState(rawValue: 5)

        @available(iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, macOS 12.0, *)
        public typealias RawValue = Int
    }

    /// Represents signed renewal information for a purchase.
    public struct RenewalInfo {

        /// The original transaction identifier for the subscription group.
        public let originalTransactionID: UInt64

        /// Whether the subscription will auto renew at the end of the current billing period.
        public let willAutoRenew: Bool

        /// Whether the subscription is in a billing retry period.
        public let isInBillingRetry: Bool

        /// The date the billing grace period will expire.
        public let gracePeriodExpirationDate: Date?
    }

    public struct Status : Equatable, Hashable {

        public let state: Product.SubscriptionInfo.RenewalState

        public let transaction: VerificationResult<Transaction>

        public let renewalInfo: VerificationResult<Product.SubscriptionInfo.RenewalInfo>
    }

    public static func status(for groupID: String) async throws -> [Product.SubscriptionInfo.Status] {
        guard let store = ScriptedAppStore.current else { throw StoreKitError.unknown }
        return try await store.statuses(forGroup: groupID)
    }

    /// Whether the user is eligible to have an introductory offer applied to a purchase in this
    /// subscription group.
    /// - Parameter groupID: The group identifier to check eligibility for.
    public static func isEligibleForIntroOffer(for groupID: String) async -> Bool {
        ScriptedAppStore.current?.isEligibleForIntroOffer(groupID: groupID) ?? false
    }
}

// Transcribed from Apple's published StoreKit interface: the conformances of
// `Product.SubscriptionInfo.RenewalInfo` (Equatable, Hashable, Sendable),
// `Product.SubscriptionInfo.RenewalState : Sendable` and
// `Product.SubscriptionInfo.Status : Sendable`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.SubscriptionInfo.RenewalInfo : Equatable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.SubscriptionInfo.RenewalInfo : Hashable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.SubscriptionInfo.RenewalInfo : Sendable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.SubscriptionInfo.RenewalState : Sendable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.SubscriptionInfo.Status : Sendable {
}
#endif
