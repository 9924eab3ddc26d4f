#if !canImport(StoreKit)
import Foundation

// Transcribed from Apple's published StoreKit interface:
// `Product.PurchaseOption`, `.appAccountToken(_:)`, `.quantity(_:)`,
// `.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product {

    public struct PurchaseOption : Equatable, Hashable, Sendable {

        /// What the option asks for, as the scripted store reads it (not Apple's API).
        package enum Scripted : Hashable, Sendable {
            case appAccountToken(UUID)
            case quantity(Int)
            case promotionalOffer(offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int)
        }

        package let scripted: Scripted

        /// Apply an app account token to a purchase.
        ///
        /// The app account token will persist in the resulting `Transaction` from a purchase.
        /// - Parameter token: A UUID that associates the purchase with an account in your system.
        public static func appAccountToken(_ token: UUID) -> Product.PurchaseOption {
            Product.PurchaseOption(scripted: .appAccountToken(token))
        }

        /// The quantity of this product to purchase.
        ///
        /// The default is 1 if this option is not added. This option can only be applied to consumable
        /// products and non-renewing subscriptions.
        /// - Parameter quantity: The quantity to purchase.
        public static func quantity(_ quantity: Int) -> Product.PurchaseOption {
            Product.PurchaseOption(scripted: .quantity(quantity))
        }

        /// A promotional offer for the purchase: the offer's id, and the key id,
        /// nonce, signature and timestamp (milliseconds since 1970) the
        /// developer's server signed it with. The scripted store records the offer id.
        public static func promotionalOffer(offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int) -> Product.PurchaseOption {
            Product.PurchaseOption(scripted: .promotionalOffer(offerID: offerID, keyID: keyID, nonce: nonce,
                                                               signature: signature, timestamp: timestamp))
        }
    }
}

// Transcribed from Apple's published StoreKit interface:
// `Product.PurchaseResult`, `Product.PurchaseError`, `Product.purchase(options:)`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product {

    public enum PurchaseResult {

        /// The purchase succeeded with a `Transaction`.
        case success(VerificationResult<Transaction>)

        /// The user cancelled the purchase.
        case userCancelled

        /// The purchase is pending some user action.
        ///
        /// These purchases may succeed in the future, and the resulting `Transaction` will be
        /// delivered via `Transaction.updates`
        case pending
    }

    public enum PurchaseError : Error {

        /// The quantity applied to the purchase was invalid.
        case invalidQuantity

        /// The product is not available on the store.
        case productUnavailable

        /// The user is not allowed to make purchases.
        case purchaseNotAllowed

        /// The user is ineligible for the applied promotional offer.
        case ineligibleForOffer

        /// The promotional offer identifier applied was invalid.
        case invalidOfferIdentifier

        /// The promotional offer price was invalid.
        case invalidOfferPrice

        /// The signature generated for the promotional offer was invalid.
        case invalidOfferSignature

        /// Necessary promotional offer parameters were missing.
        case missingOfferParameters
    }

    /// Processes a purchase for the product.
    /// - Parameter options: A set of options to configure the purchase.
    /// - Returns: The result of the purchase.
    /// - Throws: A `PurchaseError` or `StoreKitError`.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    @available(visionOS, unavailable)
    @MainActor public func purchase(options: Set<Product.PurchaseOption> = []) async throws -> Product.PurchaseResult {
        guard let store = ScriptedAppStore.current else { throw StoreKitError.unknown }
        return try await store.purchase(self, options: options)
    }
}

// Transcribed from Apple's published StoreKit interface:
// `Product.PurchaseResult : Sendable`, `Product.PurchaseError : Equatable`,
// `Product.PurchaseError : Hashable`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.PurchaseResult : Sendable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.PurchaseError : Equatable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Product.PurchaseError : Hashable {
}
#endif
