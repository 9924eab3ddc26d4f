import Foundation

extension PurchaseEngine {
    /// Tries every owed delivery now — of one user, or of everyone — and
    /// finishes delivered, rejected and revoked transactions the store still
    /// holds. It first asks the store to replay its unfinished transactions,
    /// so that one whose update could not be saved is picked up. Call it at login,
    /// on a user switch and when the network comes back. Orders of other users
    /// are never credited to `user`: each delivery goes to its order's user.
    ///
    /// - Returns: the orders tried, as they stand afterwards.
    @discardableResult
    public func retryPendingDeliveries(user userID: String? = nil) async -> [Order] {
        // A paid update whose order could not be saved was dropped; the store
        // still holds the transaction. Attaching again replays it now, instead
        // of at the next launch. Known transactions come back as duplicates.
        if isShutDown { return [] }
        if started {
            await attachToStore(within: configuration.limits.storeTimeout)
            await reconcileRevocations()
            // A flagged renewal whose follow-up could not be saved when its
            // purchase was delivered: assigned now, it is delivered below.
            _ = await matchFlaggedRenewalsAgain(flaggedRenewalIDs())
        }
        let due = orders.values
            .filter { machine.retryEvent(for: $0) != nil && (userID == nil || $0.userID == userID) }
            .sorted(by: Order.creationOrder)
        log(.info, "Retrying pending deliveries", ["count": "\(due.count)", "user": userID ?? "all"])
        await runInLane(due.map(\.id), .retry)
        var result: [Order] = []
        for order in due {
            if let now = try? await currentOrder(order.id) { result.append(now) }
        }
        return result
    }

    /// Tries one order's delivery now (the manual retry).
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound`` when no open order has this id;
    ///   ``PurchaseKitError/Code/engineShutDown`` after ``shutdown()``;
    ///   ``PurchaseKitError/Code/persistenceReadFailed`` when other work archived the
    ///   order meanwhile and the order store cannot read it back.
    @discardableResult
    public func retry(orderID: String) async throws -> Order {
        // A shut-down engine saves nothing: the call would change nothing and say it had.
        try ensureRunning(orderID: orderID)
        guard let order = orders[orderID] else {
            throw PurchaseKitError(.orderNotFound, "There is no open order '\(orderID)'.",
                                   advice: "It may be completed and archived already; check openOrders(user:).", orderID: orderID)
        }
        if let after = await drive(orderID: orderID, machine.manualRetryEvent(for: order)) { return after }
        // Archived meanwhile by other work: read back, as a typed error if the store cannot say.
        return try await readBack(orderID) ?? order
    }

    /// Gives an unassigned order (a transaction that matched no user safely) to
    /// a user, and delivers it.
    ///
    /// Assigning an order to the user it already belongs to changes nothing
    /// and answers the order as it stands (delivered again if still owed):
    /// the engine itself gives a flagged renewal to its purchase's user once
    /// that user is known, so an app that assigns every flagged order of a
    /// purchase may find a renewal given, or delivered and archived, already.
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound``; ``PurchaseKitError/Code/invalidConfiguration``
    ///   when the order already belongs to someone else — an order is only ever credited to its own user.
    ///   ``PurchaseKitError/Code/engineShutDown`` after ``shutdown()``.
    @discardableResult
    public func assign(orderID: String, toUser userID: String) async throws -> Order {
        if let archived = try await saveAssignment(orderID: orderID, to: userID) { return archived }
        return try await retry(orderID: orderID)
    }

    /// Matches again the renewals flagged because the purchase they renew had
    /// no known user then (rule 4 of ``Reconciler``): `order`, a paid order
    /// of that purchase, was just delivered, so the server accepted it and its
    /// user is known. Each flagged renewal the rules now give to a user is
    /// assigned to that user and delivered, as if it had arrived now; the
    /// others stay for the app. Costs one index lookup when none is flagged.
    func followUpFlaggedRenewals(of order: Order) {
        guard let originalID = order.transaction?.originalID, !order.userID.isEmpty,
              orders.holdsOthers(originalTransactionID: originalID, than: order.id) else { return }
        let flagged = orders.orders(originalTransactionID: originalID).filter(\.isFlaggedRenewal)
        guard !flagged.isEmpty else { return }
        spawn { engine in await engine.followUp(flagged.map(\.id)) }
    }

    /// Matches every flagged renewal again (see ``followUpFlaggedRenewals(of:)``)
    /// and delivers those assigned: at launch, for a delivery whose follow-up
    /// a kill interrupted or could not save. ``retryPendingDeliveries(user:)``
    /// does the same.
    func followUpAllFlaggedRenewals() async {
        await followUp(flaggedRenewalIDs())
    }

    /// Every open flagged renewal, oldest first.
    private func flaggedRenewalIDs() -> [String] {
        orders.values.filter(\.isFlaggedRenewal).sorted(by: Order.creationOrder).map(\.id)
    }

    private func followUp(_ flaggedIDs: [String]) async {
        for orderID in await matchFlaggedRenewalsAgain(flaggedIDs) { spawnDelivery(orderID: orderID, .deliveryDue) }
    }

    /// Returns the orders it assigned.
    private func matchFlaggedRenewalsAgain(_ orderIDs: [String]) async -> [String] {
        guard !orderIDs.isEmpty else { return [] }
        var assigned: [String] = []
        // Matched as a store update is, one at a time with the other updates.
        await lockUpdates()
        for orderID in orderIDs {
            guard let flagged = orders[orderID], flagged.isFlaggedRenewal, let transaction = flagged.transaction else { continue }
            let (candidates, lookupFailed) = await paidCandidates(for: transaction, answering: nil)
            // Without itself: it would match as its own duplicate. Nobody is
            // logged in for it: only a user the orders name may get it.
            let match = configuration.policies.reconciler.match(
                transaction, kind: .purchased, answering: nil, orders: candidates.filter { $0.id != orderID },
                currentUserID: nil, storeInitiated: false, ordersMayBeMissing: lookupFailed)
            guard case .newOrder(let userID, .renewal) = match else { continue }
            do {
                _ = try await saveAssignment(orderID: orderID, to: userID, source: .renewal)
            } catch {
                log(.warning, "A flagged renewal could not be given to its purchase's user; the next launch tries again",
                    ["orderID": orderID, "error": "\(type(of: error))"])
                continue
            }
            log(.info, "A flagged renewal follows its purchase's user, now known", ["orderID": orderID])
            assigned.append(orderID)
        }
        unlockUpdates()
        return assigned
    }

    /// Checks and saves the order's new user holding the order's lock: the
    /// engine is re-entrant at the save, and a copy read before it must not
    /// overwrite what another call saved meanwhile. Two assigns of one order
    /// to two users once both passed the check; the second one's stale copy
    /// replaced the first one's order mid-delivery, so the server credited the
    /// first user and the engine recorded the second, and both calls succeeded.
    ///
    /// `source`, when given, replaces the order's: a flagged renewal that the
    /// rules now give to its purchase's user is a `renewal`, as it would have
    /// been had that user been known when it arrived.
    ///
    /// - Returns: the archived order, when it is already `userID`'s and
    ///   archived (nothing to do); nil when the open order is `userID`'s now.
    private func saveAssignment(orderID: String, to userID: String, source: OrderSource? = nil) async throws -> Order? {
        await lockOrder(orderID)
        defer { unlockOrder(orderID) }
        // A shut-down engine's copy is stale: the next engine may have given
        // the order to someone and delivered it since (see refusesSaveAfterShutdown(of:)).
        try ensureRunning(orderID: orderID)
        guard let open = orders[orderID] else {
            if !userID.isEmpty, let archived = try? await store.order(id: orderID), archived.userID == userID {
                return archived
            }
            throw PurchaseKitError(.orderNotFound, "There is no open order '\(orderID)'.",
                                   advice: "List the orders needing attention with openOrders(user:).", orderID: orderID)
        }
        if !userID.isEmpty, open.userID == userID { return nil }
        guard var order = OrderStateMachine.assignment(of: open, to: userID, now: clock.now) else {
            throw PurchaseKitError(.invalidConfiguration, "Order '\(orderID)' already belongs to another user, or no user was given.",
                                   advice: "Only unassigned orders can be assigned, to a non-empty user id.", orderID: orderID)
        }
        if let source { order.source = source }
        do {
            try await store.save(order)
        } catch {
            throw PurchaseKitError.wrap(error, as: .persistenceWriteFailed, "Order '\(orderID)' could not be saved.",
                                        advice: "Try again.", orderID: orderID)
        }
        orders[orderID] = order
        return nil
    }

    /// Finishes a delivered order's transaction, with ``FinishPolicy/manual``.
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound``; ``PurchaseKitError/Code/engineShutDown`` after ``shutdown()``;
    ///   ``PurchaseKitError/Code/persistenceReadFailed`` when other work archived the order
    ///   meanwhile and the order store cannot read it back.
    @discardableResult
    public func finish(orderID: String) async throws -> Order {
        try ensureRunning(orderID: orderID)
        guard orders[orderID] != nil else {
            throw PurchaseKitError(.orderNotFound, "There is no open order '\(orderID)' to finish.",
                                   advice: "It may be finished and archived already.", orderID: orderID)
        }
        if let after = await drive(orderID: orderID, .finishDue) { return after }
        guard let order = try await readBack(orderID) else {
            throw PurchaseKitError(.orderNotFound, "Order '\(orderID)' disappeared.", advice: "Reload the orders.", orderID: orderID)
        }
        return order
    }

    /// The order as it stands now, for a call whose own drive did not see it
    /// end (other work archived it first); a store that cannot read answers
    /// ``PurchaseKitError/Code/persistenceReadFailed``, never its own error.
    private func readBack(_ orderID: String) async throws(PurchaseKitError) -> Order? {
        do {
            return try await currentOrder(orderID)
        } catch {
            throw PurchaseKitError.wrap(error, as: .persistenceReadFailed, "Order '\(orderID)' could not be read back.",
                                        advice: "Check openOrders(user:) later; the order store could not be read.", orderID: orderID)
        }
    }
}

private extension Order {
    /// A renewal made for nobody and flagged for the app to assign: the
    /// purchase it renews had no user known here when it arrived.
    var isFlaggedRenewal: Bool {
        guard status == .needsAttention, userID.isEmpty, let transaction else { return false }
        return transaction.id != transaction.originalID
    }
}
