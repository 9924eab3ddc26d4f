#if !canImport(StoreKit)
import Foundation

// Transcribed from Apple's published StoreKit interface: `Product`,
// `Product.ProductType`.
/// Information about a product configured in App Store Connect.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public struct Product : Identifiable {

    public struct ProductType : RawRepresentable, Equatable, Hashable {

        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }

        public static let consumable = Product.ProductType(rawValue: "Consumable")

        public static let nonConsumable = Product.ProductType(rawValue: "Non-Consumable")

        public static let nonRenewable = Product.ProductType(rawValue: "Non-Renewing Subscription")

        public static let autoRenewable = Product.ProductType(rawValue: "Auto-Renewable Subscription")

        @available(iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, macOS 12.0, *)
        public typealias RawValue = String
    }

    /// The unique product identifier.
    public let id: String

    /// The type of the product.
    public let type: Product.ProductType

    /// A localized display name of the product.
    public let displayName: String

    /// A localized description of the product.
    public let description: String

    /// The price of the product in local currency.
    public let price: Decimal

    /// A localized string representation of `price`.
    public let displayPrice: String

    /// Whether the product is available for family sharing.
    public let isFamilyShareable: Bool

    /// Properties and functionality specific to auto-renewable subscriptions.
    ///
    /// This is never `nil` if `type` is `.autoRenewable`, and always `nil` for all other product
    /// types.
    public let subscription: Product.SubscriptionInfo?

    /// The storefront's currency, behind `priceFormatStyle` (not Apple's API).
    @usableFromInline package let scriptedCurrencyCode: String

    @available(iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, macOS 12.0, *)
    public typealias ID = String
}

// Transcribed from Apple's published StoreKit interface: `Product : Equatable`,
// `Product : Hashable`, `Product : Sendable`, `Product.ProductType : Sendable`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product : Equatable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product : Hashable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product : Sendable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.ProductType : Sendable {
}

// Transcribed from Apple's published StoreKit interface:
// `Product.products(for:)`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product {

    /// Requests product data from the App Store.
    /// - Parameter identifiers: A set of product identifiers to load from the App Store. If any
    ///                          identifiers are not found, they will be excluded from the return
    ///                          value.
    /// - Returns: An array of all the products received from the App Store.
    /// - Throws: `StoreKitError`
    public static func products<Identifiers>(for identifiers: Identifiers) async throws -> [Product] where Identifiers : Collection, Identifiers.Element == String {
        guard let store = ScriptedAppStore.current else { throw StoreKitError.unknown }
        return try await store.products(for: Array(identifiers))
    }
}

// Transcribed from Apple's published StoreKit interface:
// `Product.priceFormatStyle`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product {

    /// The format style to use when formatting numbers derived from the price for the product.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    @backDeployed(before: iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, macCatalyst 16.0)
    public var priceFormatStyle: Decimal.FormatStyle.Currency { Decimal.FormatStyle.Currency(code: scriptedCurrencyCode) }
}
#endif
