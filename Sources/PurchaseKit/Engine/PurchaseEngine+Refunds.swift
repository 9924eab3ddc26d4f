import Foundation

extension PurchaseEngine {
    /// Asks the store to refund the purchase behind one of the user's orders
    /// (StoreKit's refund sheet). The store decides later: when it accepts,
    /// its `.revoked` update revokes the order (and a ``PurchaseEvent/revoked(_:)``
    /// event is sent); when it declines, nothing changes.
    ///
    /// - Returns: `.submitted`, or `.userCancelled` when the user closed the sheet.
    /// - Throws: ``PurchaseKitError``: `orderNotFound` (no such order of this
    ///   user, or one that was never paid), `refundRequestDuplicate` (revoked
    ///   already, or a request under review), `refundUnsupported` (the store
    ///   cannot take refund requests from the app), `refundRequestFailed`,
    ///   `timeout` (the store did not answer in time).
    public func requestRefund(orderID: String, user userID: String) async throws -> RefundRequestStatus {
        let found: Order?
        do {
            found = try await currentOrder(orderID)
        } catch {
            throw PurchaseKitError.wrap(error, as: .persistenceReadFailed, "Order '\(orderID)' could not be read.",
                                        advice: "Try again; check the order store's location and permissions.", orderID: orderID)
        }
        return try await requestRefund(of: found, user: userID, naming: "order '\(orderID)'")
    }

    /// Asks the store to refund the transaction of one of the user's orders;
    /// see ``requestRefund(orderID:user:)``.
    public func requestRefund(transactionID: String, user userID: String) async throws -> RefundRequestStatus {
        var found = orders.orders(transactionID: transactionID).first
        if found == nil {
            do {
                found = try await store.order(transactionID: transactionID)
            } catch {
                throw PurchaseKitError.wrap(error, as: .persistenceReadFailed,
                                            "The order of transaction '\(transactionID)' could not be read.",
                                            advice: "Try again; check the order store's location and permissions.")
            }
        }
        return try await requestRefund(of: found, user: userID, naming: "transaction '\(transactionID)'")
    }

    private func requestRefund(of order: Order?, user userID: String, naming what: String) async throws -> RefundRequestStatus {
        // Another user's order is answered as missing: one user learns nothing of another's purchases.
        guard let order, order.userID == userID, let transaction = order.transaction else {
            throw PurchaseKitError(.orderNotFound, "The user has no paid purchase for \(what).",
                                   advice: "Ask for a refund of a purchase of this user.")
        }
        guard order.status != .revoked, !transaction.isRevoked else {
            throw PurchaseKitError(.refundRequestDuplicate, "The purchase of \(what) was refunded already.",
                                   advice: "Nothing to do: the order is revoked.", orderID: order.id)
        }
        do {
            let status = try await withStore { try await $0.requestRefund(transactionID: transaction.id) }
            log(.info, "Refund requested", ["orderID": order.id, "transactionID": transaction.id, "status": status.rawValue])
            return status
        } catch let error as PurchaseKitError {
            var error = error
            if error.orderID == nil { error.orderID = order.id }
            throw error
        } catch {
            throw PurchaseKitError.wrap(error, as: .refundRequestFailed, "The refund request for \(what) failed.",
                                        advice: "Let the user try again later.", orderID: order.id)
        }
    }
}
