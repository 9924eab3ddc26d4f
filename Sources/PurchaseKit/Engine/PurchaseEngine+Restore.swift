extension PurchaseEngine {
    /// Brings back the account's non-consumables and subscriptions for `user`:
    /// each restored transaction is matched like a store update and, when it
    /// is `user`'s or nobody's, verified and delivered idempotently (a new
    /// order has source `restore`). Transactions attributed to another user —
    /// held by their order, or carrying their order's token — stay with that
    /// user and are not in the result. A transaction without a token that no
    /// order holds, while another user's order of its product waits for a
    /// payment (or expired waiting), may be that user's, its token lost: it is
    /// flagged `needsAttention` for the app to assign, not in the result.
    /// Another user's restore claim that the server refused holds nothing: on
    /// a shared store account the buyer's restore still brings the purchase back.
    ///
    /// The result says what happened to each restored transaction: delivered,
    /// owed (paid and saved; the delivery is retried), or failed (its order
    /// could not be saved, or the server refused it). A restore the user
    /// cancelled returns a result with ``RestoreResult/userCancelled`` set;
    /// the store reports that by throwing ``PurchaseKitError/Code/userCancelled``.
    ///
    /// - Throws: ``PurchaseKitError/Code/restoreFailed`` with the store's error;
    ///   ``PurchaseKitError/Code/invalidConfiguration`` for an empty user id;
    ///   ``PurchaseKitError/Code/engineShutDown`` after ``shutdown()``.
    public func restorePurchases(user userID: String) async throws -> RestoreResult {
        try ensureRunning()
        // A restore for nobody would make orders of nobody, owed deliveries no
        // retry makes, that the real owner's restore then finds taken.
        guard !userID.isEmpty else {
            throw PurchaseKitError.emptyUserID("A restore")
        }
        let transactions: [StoreTransaction]
        do {
            transactions = try await withStore { try await $0.restoreCompletedTransactions() }
        } catch let error as PurchaseKitError where error.code == .userCancelled {
            let result = RestoreResult(userID: userID, userCancelled: true)
            emit(.restoreFinished(result))
            log(.info, "Restore cancelled by the user", ["user": userID])
            return result
        } catch let error as PurchaseKitError where error.code == .engineShutDown {
            throw error
        } catch {
            let failure = PurchaseKitError(.restoreFailed, "The store could not restore purchases.",
                                           advice: "Check the network and the store account, then try again.", underlying: error)
            emit(.restoreFailed(user: userID, failure))
            log(.warning, "Restore failed", ["user": userID, "error": "\(type(of: error))"])
            throw failure
        }
        var result = RestoreResult(userID: userID)
        for transaction in transactions.sorted(by: { ($0.purchaseDate, $0.id) < ($1.purchaseDate, $1.id) }) where !transaction.isRevoked {
            switch await restoreOne(transaction, userID: userID) {
            case .delivered(let order): result.delivered.append(order)
            case .owed(let order): result.owed.append(order)
            case .failed(let failure): result.failures.append(failure)
            case .skipped: break
            }
        }
        emit(.restoreFinished(result))
        log(result.failures.isEmpty ? .info : .warning, "Restore finished", [
            "user": userID, "delivered": "\(result.delivered.count)", "owed": "\(result.owed.count)",
            "failed": "\(result.failures.count)"])
        return result
    }

    private enum RestoredTransaction {
        case delivered(Order)
        case owed(Order)
        case failed(RestoreFailure)
        case skipped
    }

    /// Matches one restored transaction like any store update — its order
    /// token first, then the reconciler's other rules, under the same lock —
    /// and delivers it now when it belongs to `userID`. A transaction another
    /// user's order holds or was paid for stays with that order; only one
    /// nobody claims becomes a `restore` order of `userID`.
    private func restoreOne(_ transaction: StoreTransaction, userID: String) async -> RestoredTransaction {
        func failure(_ code: PurchaseKitError.Code, _ message: String, orderID: String? = nil) -> RestoredTransaction {
            let advice = code == .verificationRejected
                ? "The app's server refused it; it is not credited to this user."
                : "The store keeps the purchase: restore again, or the next launch picks it up."
            return .failed(RestoreFailure(transactionID: transaction.id, productID: transaction.productID,
                                          error: PurchaseKitError(code, message, advice: advice, orderID: orderID),
                                          orderID: orderID))
        }
        await lockUpdates()
        let placement = await handlePaid(transaction, kind: .restored, updateToken: nil, fallbackUser: userID,
                                         startsDelivery: false)
        unlockUpdates()
        let orderID: String
        switch placement {
        case .order(let id):
            orderID = id
        case .undetermined:
            log(.error, "A restored transaction waits: orders the store could not read may hold it",
                ["transactionID": transaction.id, "user": userID])
            return failure(.persistenceReadFailed,
                           "The restored purchase of '\(transaction.productID)' may belong to an order the order store could not read; it is not credited until that order can be read.")
        case .notSaved, .alreadyOwned:
            // A restore carries no payment token, so the store never answers one with a transaction already owned.
            log(.error, "A restored transaction could not be saved", ["transactionID": transaction.id, "user": userID])
            return failure(.persistenceWriteFailed, "The restored purchase of '\(transaction.productID)' could not be saved.")
        }
        guard let found = try? await currentOrder(orderID) else {
            spawnDelivery(orderID: orderID, .deliveryDue)
            return failure(.persistenceReadFailed, "The order of a restored purchase could not be read.", orderID: orderID)
        }
        guard found.userID == userID else {
            // Another user's purchase: delivered to that user, as a store update would be.
            if found.status.owesDelivery { spawnDelivery(orderID: orderID, .deliveryDue) }
            return .skipped
        }
        guard found.transactionID == transaction.id else {
            // The order waiting for this transaction could not be saved with it.
            return failure(.persistenceWriteFailed, "Order '\(orderID)' could not be saved with its restored purchase.",
                           orderID: orderID)
        }
        // The order as the delivery left it: once archived, read back only if
        // the delivery did not say (a read can fail although it was credited).
        var driven: Order?
        if found.status.owesDelivery { driven = await drive(orderID: orderID, .deliveryDue) }
        if driven == nil { driven = try? await currentOrder(orderID) }
        let order = driven ?? found
        switch order.status {
        case .delivered, .completed: return .delivered(order)
        case .rejected:
            return failure(.verificationRejected, "The app's server refused the restored purchase of '\(order.productID)'.",
                           orderID: orderID)
        case .revoked: return .skipped
        default: return .owed(order)
        }
    }
}
