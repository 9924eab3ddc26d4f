#if !canImport(StoreKit)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Transcribed from Apple's published StoreKit interface: `StoreKitError`.
/// Generic StoreKit Errors.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public enum StoreKitError : Error {

    /// Failure due to an unknown, unrecoverable error.
    case unknown

    /// The action failed because the user did not complete some necessary interaction.
    case userCancelled

    /// A network error occurred when communicating with the App Store.
    case networkError(URLError)

    case systemError(any Error)

    /// The product is not available in the current storefront.
    case notAvailableInStorefront

    /// The application is not entitled to perform the action.
    @available(iOS 15.4, macOS 12.3, tvOS 15.4, watchOS 8.5, visionOS 1.0, *)
    case notEntitled

    /// The product is not supported for this operation.
    @available(iOS 18.4, macOS 15.4, tvOS 18.4, watchOS 11.4, visionOS 2.4, *)
    case unsupported
}

// Transcribed from Apple's published StoreKit interface: `StoreKitError : Sendable`.
// Apple declares a plain `Sendable` conformance; compiled from source, the
// `any Error` payload of `systemError` needs the unchecked form. The values
// the scripted store puts there are immutable errors.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension StoreKitError : @unchecked Sendable {
}
#endif
