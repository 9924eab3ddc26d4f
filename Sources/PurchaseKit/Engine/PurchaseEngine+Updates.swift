import Foundation

extension PurchaseEngine {
    /// Receives the store's updates (through its ``EngineQueueObserver``). Each
    /// update is matched to its order and the order is saved before this
    /// returns; verification runs afterwards as engine work. Updates that
    /// could touch the same order are handled one at a time,
    /// so two transactions can never be matched to the same order; updates of
    /// different payments go side by side.
    func paymentQueue(didUpdate updates: [TransactionUpdate]) async {
        // Shut down: the store keeps what is not finished for the next engine.
        guard !isShutDown else { return }
        for update in updates {
            let claim = UpdateGate.claim(for: update)
            await enterGate(claim)
            await handle(update)
            leaveGate(claim)
        }
    }

    /// Takes the whole gate: no store update is matched meanwhile. Restores
    /// and revocations, which look across every order, take it.
    func lockUpdates() async {
        await enterGate(.exclusive)
    }

    func unlockUpdates() {
        leaveGate(.exclusive)
    }

    private func enterGate(_ claim: UpdateGate.Claim) async {
        if updateGate.tryEnter(claim) { return }
        await suspend { updateGate.wait(claim, $0) }
    }

    private func leaveGate(_ claim: UpdateGate.Claim) {
        for waiter in updateGate.leave(claim) { waiter.resume() }
    }

    private func handle(_ update: TransactionUpdate) async {
        switch update.kind {
        case .purchased, .restored:
            guard let transaction = update.transaction else {
                log(.warning, "A paid update without a transaction was ignored", ["productID": update.productID])
                return
            }
            await handlePaid(transaction, kind: update.kind, updateToken: update.orderToken, fallbackUser: currentUserID,
                             storeInitiated: update.isStoreInitiated)
        case .revoked:
            guard let transaction = update.transaction else { return }
            await handleRevocation(transaction)
        case .purchasing, .deferred, .interrupted, .scheduled, .cancelled, .failed:
            let orderID = configuration.policies.reconciler.matchUnpaid(update, orders: orders.candidates(forUnpaid: update))
            if let orderID {
                await drive(orderID: orderID, .store(update.kind, nil))
            } else {
                counters.staleUpdatesIgnored += 1
                log(.debug, "A payment update matched no waiting order", ["productID": update.productID])
            }
            if let paymentID = update.paymentID {
                var order: Order?
                if let orderID { order = try? await currentOrder(orderID) }
                if OrderStateMachine.mayFinishUnpaidPayment(of: order) {
                    await finishTransaction(paymentID, orderID: orderID ?? "-")
                }
            }
        }
    }

    /// Learns of revocations the store announced while no process could save
    /// them (an app killed between the store's refund and the engine's save):
    /// every transaction the store reports revoked whose order is not yet
    /// revoked is revoked now. Runs at launch and at retry triggers.
    func reconcileRevocations() async {
        guard let revoked = try? await withStore({ try await $0.revokedTransactions() }) else {
            log(.info, "The store's revocations could not be read; asked again at the next trigger")
            return
        }
        for transaction in revoked.sorted(by: { $0.id < $1.id }) {
            var order = configuration.policies.reconciler.matchRevocation(transaction, orders: orders.orders(transactionID: transaction.id)).flatMap { orders[$0] }
            if order == nil { order = try? await store.order(transactionID: transaction.id) }
            guard let order, order.status != .revoked else { continue }
            log(.info, "A revocation the engine had not recorded was found", ["orderID": order.id, "transactionID": transaction.id])
            await lockUpdates()
            await handleRevocation(transaction)
            unlockUpdates()
        }
    }

    /// A paid transaction: find or make its order, save it as `purchased`, and
    /// start the delivery. `updateToken` is the token of the payment the
    /// update answers; `fallbackUser` gets a transaction nothing else claims;
    /// `storeInitiated` marks a purchase the store started. With
    /// `startsDelivery` false the delivery owed is left to the caller (a restore).
    /// Call it holding ``lockUpdates()``.
    ///
    /// - Returns: the order the transaction belongs to now, or why it has none
    ///   and is left with the store.
    @discardableResult
    func handlePaid(_ transaction: StoreTransaction, kind: TransactionUpdate.Kind, updateToken: String?,
                    fallbackUser: String?, storeInitiated: Bool = false, startsDelivery: Bool = true) async -> PaidPlacement {
        let (candidates, lookupFailed) = await paidCandidates(for: transaction, answering: updateToken)
        let match = configuration.policies.reconciler.match(transaction, kind: kind, answering: updateToken,
                                                   orders: candidates, currentUserID: fallbackUser,
                                                   storeInitiated: storeInitiated, ordersMayBeMissing: lookupFailed)
        let placement = await place(transaction, match, kind: kind, candidates: candidates, startsDelivery: startsDelivery)
        if !earlyRevocations.isEmpty, case .order(let orderID) = placement,
           let revoked = earlyRevocations.removeValue(forKey: transaction.id) {
            log(.info, "A revocation that came before its payment is applied", ["orderID": orderID, "transactionID": transaction.id])
            await drive(orderID: orderID, .store(.revoked, revoked))
        }
        return placement
    }

    /// The orders a paid `transaction` may belong to, for the reconciler: the
    /// open ones oldest first, then the archived ones (the transaction's own
    /// holder, then the purchase's orders oldest first, then the token's), so
    /// that the same updates always match the same way. `lookupFailed` when
    /// the order store could not say whether it holds one.
    func paidCandidates(for transaction: StoreTransaction, answering updateToken: String?) async
        -> (orders: [Order], lookupFailed: Bool) {
        var candidates = candidateOrders(for: transaction, answering: updateToken)
        // A lookup that failed is no answer of "none": the order it did not
        // find may be the transaction's (see Reconciler.Match.undetermined).
        var lookupFailed = false
        // Archived orders matter too: a late duplicate of a finished purchase,
        // and the earlier orders of a subscription whose renewal or change of
        // tier this is (the store's index by original id; its first order
        // alone from a store without one). In a fixed order, oldest first.
        do {
            if let archived = try await store.order(transactionID: transaction.id), orders[archived.id] == nil {
                candidates.append(archived)
            }
        } catch {
            lookupFailed = true
        }
        do {
            for archived in try await store.orders(originalTransactionID: transaction.originalID)
            where orders[archived.id] == nil && !candidates.contains(where: { $0.id == archived.id }) {
                candidates.append(archived)
            }
        } catch {
            lookupFailed = true
        }
        // A payment that completes after its order failed, expired or was
        // archived still carries the order's token: the order, and its user,
        // are found by it, never guessed from who is logged in.
        if let token = transaction.orderToken, !candidates.contains(where: { $0.token == token }) {
            do {
                if let archived = try await store.order(token: token), orders[archived.id] == nil {
                    candidates.append(archived)
                }
            } catch {
                lookupFailed = true
            }
        }
        return (candidates, lookupFailed)
    }

    /// Does what the reconciler's `match` of a paid transaction asks.
    private func place(_ transaction: StoreTransaction, _ match: Reconciler.Match, kind: TransactionUpdate.Kind,
                       candidates: [Order], startsDelivery: Bool) async -> PaidPlacement {
        switch match {
        case .undetermined:
            unplacedTransactions.insert(transaction.id)
            // Not finished: the store reports it again once the orders can be read.
            log(.warning, "A paid transaction waits: the order store could not say which order holds it",
                ["transactionID": transaction.id])
            return .undetermined
        case .alreadyOwned(let orderID):
            // The store answered a new payment with a transaction the account
            // already owns: nothing was charged for that order. The transaction
            // stays with its own order, which its own update reaches.
            log(.info, "The store account already owns the product", ["orderID": orderID, "transactionID": transaction.id])
            await drive(orderID: orderID, .store(.failed(.alreadyOwned), nil))
            return .alreadyOwned
        case .duplicate(let orderID):
            markPlaced(transaction.id)
            counters.staleUpdatesIgnored += 1
            await handleDuplicate(transaction, orderID: orderID, candidates: candidates)
            return .order(orderID)
        case .order(let orderID):
            if orders[orderID] == nil, let archived = candidates.first(where: { $0.id == orderID }) {
                orders[orderID] = archived
            }
            await drive(orderID: orderID, .store(kind, transaction), deferDelivery: true, startsDeferredDelivery: startsDelivery)
            return .order(orderID)
        case .newOrder(let userID, let source):
            let orderID = await adopt(transaction, userID: userID, source: source, attention: nil, startsDelivery: startsDelivery)
            return orderID.map(PaidPlacement.order) ?? .notSaved
        case .ambiguous(let candidateIDs, let userID):
            let hint = candidateIDs.isEmpty
                ? "No order or user matches this transaction; assign it with assign(orderID:toUser:)."
                : "The store lost the order token and \(candidateIDs.count) orders could match; not guessed."
            let orderID = await adopt(transaction, userID: userID ?? "", source: .unknown, attention: hint)
            // A purchase call waiting on one of the candidates must not wait for
            // ever for an answer that went to review.
            for candidateID in candidateIDs where calls.isWaiting(candidateID) {
                if let order = orders[candidateID] {
                    resolveWaiter(orderID: candidateID, with: .success(.pending(order, .awaitingReview)))
                }
            }
            return orderID.map(PaidPlacement.order) ?? .notSaved
        }
    }

    /// Where ``handlePaid(_:kind:updateToken:fallbackUser:storeInitiated:startsDelivery:)``
    /// put a paid transaction.
    enum PaidPlacement: Equatable {
        /// The order it belongs to now.
        case order(String)
        /// The store answered a new payment with a transaction the account
        /// already owns; it stays with its own order.
        case alreadyOwned
        /// Its new order could not be saved; the store replays it.
        case notSaved
        /// The order store could not say which order holds it (some could not
        /// be read); left unfinished with the store until it can.
        case undetermined
    }

    /// The open orders the reconciler may match `transaction` to
    /// (``OpenOrders/candidates(for:answering:)``).
    private func candidateOrders(for transaction: StoreTransaction, answering updateToken: String?) -> [Order] {
        orders.candidates(for: transaction, answering: updateToken)
    }

    private func handleDuplicate(_ transaction: StoreTransaction, orderID: String, candidates: [Order]) async {
        guard let order = candidates.first(where: { $0.id == orderID }) else { return }
        log(.debug, "Duplicate transaction update ignored", ["orderID": orderID, "transactionID": transaction.id, "status": order.status.rawValue])
        if OrderStateMachine.refinishesDuplicate(of: order, isOpen: orders[orderID] != nil) {
            await finishTransaction(transaction.id, orderID: orderID)
        }
    }

    /// Makes a new order for a transaction no order was waiting for: owed a
    /// delivery, or, with an `attention` note, flagged `needsAttention`.
    /// Returns its id, or nil when it could not be saved.
    private func adopt(_ transaction: StoreTransaction, userID: String, source: OrderSource, attention: String?,
                       startsDelivery: Bool = true) async -> String? {
        let order = OrderStateMachine.adoptedOrder(for: transaction, userID: userID, source: source, attention: attention,
                                                   product: products[transaction.productID], now: clock.now)
        let orderID = order.id
        if refusesSaveAfterShutdown(of: orderID) { return nil }
        do {
            try await store.save(order)
        } catch {
            log(.error, "A paid transaction could not be saved; the store will replay it", ["transactionID": transaction.id, "error": "\(type(of: error))"])
            unplacedTransactions.insert(transaction.id)
            return nil
        }
        markPlaced(transaction.id)
        orders[orderID] = order
        emit(.orderChanged(order, from: nil))
        log(.info, "Order made from a store transaction", ["orderID": orderID, "source": source.rawValue, "transactionID": transaction.id])
        if attention != nil {
            emit(.needsAttention(order))
            log(.warning, "A transaction could not be matched safely", ["orderID": orderID, "transactionID": transaction.id])
        } else if startsDelivery {
            spawnDelivery(orderID: orderID, .deliveryDue)
        }
        return orderID
    }

    private func handleRevocation(_ transaction: StoreTransaction) async {
        var orderID = configuration.policies.reconciler.matchRevocation(transaction, orders: orders.orders(transactionID: transaction.id))
        var fromArchive = false
        if orderID == nil, let archived = try? await store.order(transactionID: transaction.id) {
            orders[archived.id] = archived
            orderID = archived.id
            fromArchive = true
        }
        guard let orderID else {
            log(.warning, "A revocation matched no order", ["transactionID": transaction.id])
            // Its payment may still be on its way (updates come in any order).
            earlyRevocations[transaction.id] = transaction
            await finishTransaction(transaction.id, orderID: "-")
            return
        }
        await drive(orderID: orderID, .store(.revoked, transaction))
        if let order = orders[orderID], OrderStateMachine.returnsToArchive(afterRevoking: order) {
            // Brought back only to be revoked, but it could not be: it is still
            // in the archive, unchanged, so it only leaves the working set.
            if fromArchive { orders[orderID] = nil } else { await archive(orderID: orderID) }
        }
    }
}
