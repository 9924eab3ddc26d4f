import Foundation

/// The one error type PurchaseKit throws.
///
/// Switch on ``code``; read ``message`` for what happened and ``advice`` for
/// what to do. New codes may be added in minor versions, so keep a `default`
/// branch. The description never contains receipts, signed payloads or order
/// tokens; the underlying error is kept in ``underlying`` but only its type is
/// printed, because a plug-in's error may carry data PurchaseKit cannot vet.
public struct PurchaseKitError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// What happened, in a sentence.
    public var message: String
    /// What the caller (or the user) can do next.
    public var advice: String
    /// The error that caused this one, kept for diagnosis.
    public var underlying: (any Error & Sendable)?
    /// For ``Code/invalidTransition``: the status the order was in.
    public var fromStatus: OrderStatus?
    /// For ``Code/invalidTransition``: the status it was asked to move to.
    public var toStatus: OrderStatus?
    /// The order concerned, when there is one.
    public var orderID: String?
    /// For ``Code/invalidProductIdentifiers``: the identifiers the store did not know.
    public var productIDs: [String]
    /// For ``Code/paymentFailed``: the store's reason.
    public var storeReason: StoreFailureReason?
    /// For configuration and decoding errors: the key path at fault, such as `products[2].type`.
    public var keyPath: String?

    /// Creates an error. Prefer the static constructors for codes that carry details.
    public init(
        _ code: Code,
        _ message: String,
        advice: String,
        underlying: (any Error & Sendable)? = nil,
        orderID: String? = nil,
        keyPath: String? = nil
    ) {
        self.code = code
        self.message = message
        self.advice = advice
        self.underlying = underlying
        self.orderID = orderID
        self.keyPath = keyPath
        self.productIDs = []
    }

    public var description: String {
        var text = "PurchaseKitError.\(code.rawValue): \(message) \(advice)"
        if let underlying { text += " (underlying: \(type(of: underlying)))" }
        return text
    }

    public var debugDescription: String { description }
}

extension PurchaseKitError: LocalizedError {
    public var errorDescription: String? { message }
    public var recoverySuggestion: String? { advice }
}

extension PurchaseKitError: Equatable {
    /// Two errors are equal when they say the same thing; underlying errors are not compared.
    public static func == (lhs: PurchaseKitError, rhs: PurchaseKitError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.fromStatus == rhs.fromStatus
            && lhs.toStatus == rhs.toStatus && lhs.orderID == rhs.orderID && lhs.productIDs == rhs.productIDs
            && lhs.storeReason == rhs.storeReason && lhs.keyPath == rhs.keyPath
    }
}

extension PurchaseKitError.Code {
    /// The device or account may not make payments (parental controls, MDM, region).
    public static let paymentsNotAllowed = Self(rawValue: "paymentsNotAllowed")
    /// The store does not know some product identifiers; see `productIDs`.
    public static let invalidProductIdentifiers = Self(rawValue: "invalidProductIdentifiers")
    /// Products could not be loaded from the store.
    public static let productRequestFailed = Self(rawValue: "productRequestFailed")
    /// A payment for this user and product is already in flight.
    public static let purchaseInProgress = Self(rawValue: "purchaseInProgress")
    /// The user cancelled.
    public static let userCancelled = Self(rawValue: "userCancelled")
    /// The store refused the payment; see `storeReason`.
    public static let paymentFailed = Self(rawValue: "paymentFailed")
    /// The order generator (usually the app's server) could not make an order.
    public static let orderGenerationFailed = Self(rawValue: "orderGenerationFailed")
    /// The verifier definitely rejected the receipt. Not retried.
    public static let verificationRejected = Self(rawValue: "verificationRejected")
    /// The verifier could not answer now. Retried; nothing is lost.
    public static let verificationUnavailable = Self(rawValue: "verificationUnavailable")
    /// A status move that the transition table forbids; see `fromStatus` and `toStatus`.
    public static let invalidTransition = Self(rawValue: "invalidTransition")
    /// Orders could not be read from storage.
    public static let persistenceReadFailed = Self(rawValue: "persistenceReadFailed")
    /// An order could not be written to storage.
    public static let persistenceWriteFailed = Self(rawValue: "persistenceWriteFailed")
    /// A stored order is damaged, truncated, foreign or from a newer version.
    public static let persistenceCorrupt = Self(rawValue: "persistenceCorrupt")
    /// An entry in the order store's folders is not a regular file within the
    /// size limit (a FIFO, socket, device, symbolic link, folder, or a file too
    /// large); it was set aside unread, and the other orders loaded.
    public static let persistenceUnusableFile = Self(rawValue: "persistenceUnusableFile")
    /// An operation took longer than its configured limit.
    public static let timeout = Self(rawValue: "timeout")
    /// The store could not be reached.
    public static let storeUnavailable = Self(rawValue: "storeUnavailable")
    /// No order has this id (or transaction id).
    public static let orderNotFound = Self(rawValue: "orderNotFound")
    /// A configuration value or file is invalid; see `keyPath`.
    public static let invalidConfiguration = Self(rawValue: "invalidConfiguration")
    /// Restoring purchases failed.
    public static let restoreFailed = Self(rawValue: "restoreFailed")
    /// The caller's task was cancelled while it waited. The payment, if the
    /// store took it, carries on; its result arrives as events.
    public static let cancelled = Self(rawValue: "cancelled")
    /// A store transaction carries a quantity no App Store purchase can have
    /// (zero, negative, more than ten, or more than one of a non-consumable or
    /// subscription). Its order needs attention and is never delivered or
    /// counted; support must look at it (the store refunds on request).
    public static let invalidQuantity = Self(rawValue: "invalidQuantity")
    /// The engine was shut down (``PurchaseEngine/shutdown()``); make a new one.
    public static let engineShutDown = Self(rawValue: "engineShutDown")
}
