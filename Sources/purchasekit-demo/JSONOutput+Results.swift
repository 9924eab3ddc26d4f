import PurchaseKit

/// The `--json` shapes of `buy` and `restore`. Field names are a contract for scripts; add, never rename.
extension JSONOutput {
    /// An order as a purchase or a restore left it.
    struct ResultOrder: Encodable {
        var id: String
        var productID: String
        var userID: String
        var status: String
        var transactionID: String?
        var source: String
        var quantity: Int

        init(_ order: Order) {
            id = order.id
            productID = order.productID
            userID = order.userID
            status = order.status.rawValue
            transactionID = order.transactionID
            source = order.source.rawValue
            quantity = order.quantity
        }
    }

    /// How `buy` ended: `result` is `success`, `userCancelled` or `pending`.
    struct PurchaseEntry: Encodable {
        var result: String
        /// For `pending`: awaitingApproval, actionRequired, deliveryRetrying, storeTimeout or awaitingReview.
        var pendingReason: String?
        var order: ResultOrder

        init(_ purchase: PurchaseResult) {
            switch purchase {
            case .success: result = "success"
            case .userCancelled: result = "userCancelled"
            case .pending(_, let reason):
                result = "pending"
                pendingReason = reason.rawValue
            }
            order = ResultOrder(purchase.order)
        }
    }

    /// One restored transaction the restore could not take on.
    struct RestoreFailureEntry: Encodable {
        var transactionID: String
        var productID: String
        var code: String
        var message: String
        var orderID: String?
    }

    /// What `restore` did.
    struct RestoreEntry: Encodable {
        var user: String
        var userCancelled: Bool
        /// Restored and delivered, sorted.
        var restoredProductIDs: [String]
        var delivered: [ResultOrder]
        /// Paid and saved; the delivery is retried.
        var owed: [ResultOrder]
        var failures: [RestoreFailureEntry]

        init(_ restore: RestoreResult) {
            user = restore.userID
            userCancelled = restore.userCancelled
            restoredProductIDs = restore.restoredProductIDs
            delivered = restore.delivered.map(ResultOrder.init)
            owed = restore.owed.map(ResultOrder.init)
            failures = restore.failures.map {
                RestoreFailureEntry(transactionID: $0.transactionID, productID: $0.productID, code: $0.error.code.rawValue,
                                    message: $0.error.message, orderID: $0.orderID)
            }
        }
    }
}
