import Foundation
import PurchaseKit

/// The receipt `AppStorePaymentQueue` puts on each ``StoreTransaction``:
/// what your ``ReceiptVerifier`` finds in `request.transaction.receipt`.
///
/// - A transaction StoreKit verified carries its JWS (`jwsRepresentation`,
///   UTF-8), exactly as Apple signed it: send it to your server, which checks
///   it with Apple's App Store Server Library before crediting.
/// - A transaction StoreKit could not verify carries no JWS at all, only the
///   text `unverified:` and StoreKit's reason. No server can accept it as a
///   purchase; answer `.invalid` (``VerifiedReceiptsOnly`` does).
public enum AppStoreReceipt: Sendable, Hashable {
    /// StoreKit verified the transaction; this is its JWS.
    case signedTransaction(jws: String)
    /// StoreKit could not verify the transaction, for this reason
    /// (`invalidSignature`, `invalidDeviceVerification`...). Never deliver it.
    case unverified(reason: String)
    /// Not a receipt the App Store adapter writes.
    case unrecognized

    private static let unverifiedPrefix = "unverified:"

    /// Reads a receipt.
    public init(_ receipt: Data) {
        guard let text = String(data: receipt, encoding: .utf8) else {
            self = .unrecognized
            return
        }
        if text.hasPrefix(Self.unverifiedPrefix) {
            self = .unverified(reason: String(text.dropFirst(Self.unverifiedPrefix.count)))
        } else if Self.isCompactJWS(text) {
            self = .signedTransaction(jws: text)
        } else {
            self = .unrecognized
        }
    }

    /// The receipt's bytes.
    public var data: Data {
        switch self {
        case .signedTransaction(let jws): return Data(jws.utf8)
        case .unverified(let reason): return Data((Self.unverifiedPrefix + reason).utf8)
        case .unrecognized: return Data()
        }
    }

    /// Three non-empty base64url parts separated by dots.
    private static func isCompactJWS(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 3 && parts.allSatisfy { part in
            !part.isEmpty && part.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
        }
    }
}

/// A ``ReceiptVerifier`` that passes transactions StoreKit verified to yours
/// and answers `.invalid` for every other one without asking it: a
/// transaction StoreKit could not verify is never delivered.
public struct VerifiedReceiptsOnly: ReceiptVerifier {
    private let verifier: any ReceiptVerifier

    /// Guards `verifier`, usually the one that asks your server.
    public init(_ verifier: any ReceiptVerifier) {
        self.verifier = verifier
    }

    public func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
        switch AppStoreReceipt(request.transaction.receipt) {
        case .signedTransaction:
            return try await verifier.verify(request)
        case .unverified(let reason):
            return .invalid(reason: "StoreKit could not verify the transaction (\(reason))")
        case .unrecognized:
            return .invalid(reason: "the receipt is not a transaction signed by the App Store")
        }
    }
}

/// A receipt printed, logged or dumped shows its kind and StoreKit's reason,
/// never the JWS: it is a signed transaction, which must stay out of logs.
extension AppStoreReceipt: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        switch self {
        case .signedTransaction(let jws): return "signedTransaction(jws: <\(jws.utf8.count) bytes redacted>)"
        case .unverified(let reason): return "unverified(reason: \(reason))"
        case .unrecognized: return "unrecognized"
        }
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        switch self {
        case .signedTransaction: return Mirror(self, children: ["signedTransaction": "<redacted>"], displayStyle: .enum)
        case .unverified(let reason): return Mirror(self, children: ["unverified": reason], displayStyle: .enum)
        case .unrecognized: return Mirror(self, children: [:], displayStyle: .enum)
        }
    }
}
