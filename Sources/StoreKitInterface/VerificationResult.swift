#if !canImport(StoreKit)
import Foundation

// Transcribed from Apple's published StoreKit interface: `VerificationResult`,
// `VerificationResult.VerificationError`, `unsafePayloadValue`.
/// Describes the result of verifying the signature for the associated value of `SignedType`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
@frozen public enum VerificationResult<SignedType> {

    /// The associated value failed verification for the provided reason.
    case unverified(SignedType, VerificationResult<SignedType>.VerificationError)

    /// The associated value passed all automatic verification checks.
    case verified(SignedType)

    /// Ignore the result of StoreKit's verification, and get the payload value.
    public var unsafePayloadValue: SignedType {
        switch self {
        case .verified(let value), .unverified(let value, _): return value
        }
    }
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension VerificationResult {

    public enum VerificationError : Error {

        /// The certificate chain was parsable, but was invalid due to one or more revoked certificates.
        ///
        /// Trying again later may retrieve valid signed data from the App Store.
        case revokedCertificate

        /// The certificate chain was parsable, but it was invalid for signing this data.
        case invalidCertificateChain

        /// The device verification properties were invalid for this device.
        case invalidDeviceVerification

        /// Th JWS header and any data included in it or it's certificate chain had an invalid encoding.
        case invalidEncoding

        /// The certificate chain was valid for signing this data, but the leaf's public key was invalid for the
        /// JWS signature.
        case invalidSignature

        /// Either the JWS header or any certificate in the chain was missing necessary properties for
        /// verification.
        case missingRequiredProperties
    }
}

// Transcribed from Apple's published StoreKit interface:
// `VerificationResult.jwsRepresentation` where `SignedType == Transaction`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension VerificationResult where SignedType == Transaction {

    /// The raw JSON web signature for the signed value.
    public var jwsRepresentation: String { unsafePayloadValue.scriptedJWS }
}

// Transcribed from Apple's published StoreKit interface: the conformances of
// `VerificationResult` (Equatable, Hashable, Sendable, each conditional) and
// `VerificationResult.VerificationError` (Equatable, Hashable).
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension VerificationResult : Equatable where SignedType : Equatable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension VerificationResult : Hashable where SignedType : Hashable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension VerificationResult : Sendable where SignedType : Sendable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension VerificationResult.VerificationError : Equatable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension VerificationResult.VerificationError : Hashable {
}
#endif
