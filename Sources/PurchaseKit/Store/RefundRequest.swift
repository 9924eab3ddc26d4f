/// How a refund request ended on the device. The store decides later: an
/// accepted refund arrives as a `.revoked` update, and the engine revokes the
/// order then; a declined one changes nothing.
public enum RefundRequestStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// The user submitted the request; the store reviews it.
    case submitted
    /// The user closed the refund sheet without submitting.
    case userCancelled
}

extension PurchaseKitError.Code {
    /// The store cannot take refund requests from the app (this payment
    /// queue does not implement them, or the platform needs UI it cannot show).
    public static let refundUnsupported = Self(rawValue: "refundUnsupported")
    /// The store refused the refund request: a request for the transaction is
    /// already under review, or the transaction was refunded already.
    public static let refundRequestDuplicate = Self(rawValue: "refundRequestDuplicate")
    /// The refund request could not be made (the store failed, or the
    /// transaction cannot be refunded).
    public static let refundRequestFailed = Self(rawValue: "refundRequestFailed")
}

extension PaymentQueue {
    /// Refund requests are not supported unless the queue implements them.
    ///
    /// - Throws: ``PurchaseKitError/Code/refundUnsupported``.
    public func requestRefund(transactionID: String) async throws -> RefundRequestStatus {
        throw PurchaseKitError(.refundUnsupported, "This store cannot take refund requests from the app.",
                               advice: "Send the user to the store's own refund page (reportaproblem.apple.com for the App Store).")
    }

    /// The default knows nothing about the account and answers nil: the
    /// engine then answers from the user's orders alone.
    public func isEligibleForIntroOffer(groupID: String) async -> Bool? {
        nil
    }
}
