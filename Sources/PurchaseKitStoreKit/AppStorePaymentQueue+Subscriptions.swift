import PurchaseKit

extension AppStorePaymentQueue {
    /// Not available through the adapter: StoreKit 2's refund request is
    /// `Transaction.beginRefundRequest(for:in:)`, which needs the app's
    /// `UIWindowScene` (iOS, iPadOS, Mac Catalyst, visionOS) or
    /// `NSViewController` (macOS) to show its sheet on the main actor, and a
    /// payment queue holds no UI. Call it from the app's UI with the order's
    /// `transaction.id` (a `UInt64` in StoreKit); when Apple accepts the
    /// refund, the revocation arrives through `Transaction.updates` and the
    /// engine revokes the order.
    ///
    /// - Throws: ``PurchaseKitError/Code/refundUnsupported``, always.
    public func requestRefund(transactionID: String) async throws -> RefundRequestStatus {
        throw PurchaseKitError(
            .refundUnsupported, "The App Store adapter cannot show StoreKit's refund sheet: it needs the app's window scene.",
            advice: "Call Transaction.beginRefundRequest(for:in:) from the app's UI with the transaction id; an accepted refund arrives as a revocation.")
    }

    /// StoreKit's `Product.SubscriptionInfo.isEligibleForIntroOffer(for:)`:
    /// whether the App Store account may still have an introductory offer in the group.
    public func isEligibleForIntroOffer(groupID: String) async -> Bool? {
        await client.isEligibleForIntroOffer(groupID: groupID)
    }
}
