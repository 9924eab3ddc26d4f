import Foundation

extension PurchaseEngine {
    func lockOrder(_ orderID: String) async {
        if orderLocks.tryAcquire(orderID) { return }
        await suspend { orderLocks.enqueue(orderID, $0) }
    }

    func unlockOrder(_ orderID: String) {
        orderLocks.release(orderID)?.resume()
    }

    /// Applies `event` to an open order and performs what the state machine
    /// asks, feeding results back in (verify → verified → finish → finished)
    /// until the order rests. Holds the order's lock throughout.
    ///
    /// With `deferDelivery`, a `verify` is started as separate engine work
    /// instead of being awaited: the store's observer callback must not wait
    /// for the verifier. With `deferDelivery` and not `startsDeferredDelivery`,
    /// the caller delivers (a restore does, and reports the outcome).
    ///
    /// - Returns: the order as this drive left it (nil when it was not open):
    ///   an archived order is answered from what was saved, with no read back
    ///   from the order store, which may fail although the work was done.
    @discardableResult
    func drive(orderID: String, _ first: OrderEvent, deferDelivery: Bool = false,
               startsDeferredDelivery: Bool = true) async -> Order? {
        await lockOrder(orderID)
        defer { unlockOrder(orderID) }
        var events: [OrderEvent] = [first]
        var last = first
        // The order as last saved here: once archived it is the final answer,
        // with no read back from the store.
        var saved: Order?
        while !events.isEmpty {
            let event = events.removeFirst()
            guard let order = orders[orderID] else { return saved }
            let delay = configuration.policies.retryPolicy.delay(afterAttempt: order.verificationAttempts + 1, using: &random)
            let step = machine.step(order, on: event, now: clock.now, retryDelay: delay)
            if step.isNoChange {
                if case .store = event {
                    counters.staleUpdatesIgnored += 1
                    log(.debug, "Store update changed nothing (duplicate, late or out of order)", ["orderID": orderID, "status": order.status.rawValue])
                }
                continue
            }
            guard record(step.order, replacing: order) else { return order }
            // A save the archive move follows at once is one change, where the store can make it one.
            let archivingSave = step.actions == [.persist, .archive] ? archivingStore : nil
            for action in step.actions {
                switch action {
                case .persist:
                    guard await persist(step.order, previous: order, archivingWith: archivingSave) else {
                        answerAfterFailedSave(attempted: step.order, saved: order)
                        retryAfterFailedSave(of: order)
                        return order
                    }
                    if !failedSaveStreaks.isEmpty { failedSaveStreaks[orderID] = nil }
                    saved = step.order
                case .verify:
                    if deferDelivery {
                        if startsDeferredDelivery { spawnDelivery(orderID: orderID, .deliveryDue) }
                    } else if step.order.productType == nil, await learnProductType(of: orderID) {
                        // What the product is decides which quantities are
                        // possible: the machine decides again, with it, before
                        // the server is asked to credit anything.
                        events.append(.deliveryDue)
                    } else {
                        events.append(.verified(await verify(step.order)))
                    }
                case .finish(let transactionID):
                    if await finishTransaction(transactionID, orderID: orderID) { events.append(.finished) }
                case .scheduleRetry(let date):
                    scheduleRetry(orderID: orderID, at: date)
                    emit(.retryScheduled(step.order, at: date))
                    log(.info, "Delivery retry scheduled", ["orderID": orderID, "at": "\(date)", "attempts": "\(step.order.verificationAttempts)"])
                case .archive:
                    if archivingSave != nil { orders[orderID] = nil } else { await archive(orderID: orderID) }
                }
            }
            last = event
        }
        var final = orders[orderID] ?? saved
        guard calls.isWaiting(orderID) else { return final }
        if final == nil { final = try? await currentOrder(orderID) }
        if let final { settleWaiter(for: final, after: last) }
        return final
    }

    /// An order as it stands now: from the working set, else from the archive.
    func currentOrder(_ orderID: String) async throws -> Order? {
        if let open = orders[orderID] { return open }
        return try await store.order(id: orderID)
    }

    /// Schedules the next try of a delivery whose record could not be saved
    /// (``OrderStateMachine/retryAfterFailedSave(of:now:retryDelay:)``). The
    /// attempts the order counts could not be saved either, so the delay grows
    /// with the failed saves in a row instead: a disk that stays full must not
    /// have the engine ask the server every few seconds.
    private func retryAfterFailedSave(of order: Order) {
        guard !isShutDown else { return }
        let streak = (failedSaveStreaks[order.id] ?? 0) + 1
        let delay = configuration.policies.retryPolicy.delay(afterAttempt: order.verificationAttempts + streak, using: &random)
        guard let date = OrderStateMachine.retryAfterFailedSave(of: order, now: clock.now, retryDelay: delay) else { return }
        failedSaveStreaks[order.id] = streak
        scheduleRetry(orderID: order.id, at: date)
    }

    /// A save failed, so the order did not move: the waiting call, if any, is
    /// answered now (``OrderStateMachine/answerAfterFailedSave(attempted:saved:)``).
    private func answerAfterFailedSave(attempted: Order, saved: Order) {
        guard calls.isWaiting(attempted.id) else { return }
        resolveWaiter(orderID: attempted.id, with: OrderStateMachine.answerAfterFailedSave(attempted: attempted, saved: saved))
    }

    /// Double-checks the state machine's move against the table; a refusal is a
    /// bug, counted and logged, and nothing is written.
    private func record(_ order: Order, replacing previous: Order) -> Bool {
        guard order.status != previous.status else { return true }
        do {
            try OrderTransitionTable.validate(from: previous.status, to: order.status, orderID: order.id)
            return true
        } catch {
            counters.invalidTransitionsAttempted += 1
            log(.error, "Refused an invalid transition", ["orderID": order.id, "from": previous.status.rawValue, "to": order.status.rawValue])
            return false
        }
    }

    /// Saves the order; only then does the engine's copy change and the event go out.
    /// Nothing is saved once the engine is shut down (see ``refusesSaveAfterShutdown(of:)``).
    /// With `mover`, the order is saved straight into the archive, and the
    /// caller drops it from the open orders.
    private func persist(_ order: Order, previous: Order, archivingWith mover: (any ArchivingOrderStore)? = nil) async -> Bool {
        if refusesSaveAfterShutdown(of: order.id) { return false }
        do {
            if let mover { try await mover.saveArchived(order) } else { try await store.save(order) }
        } catch {
            log(.error, "An order could not be saved; it will be retried from the store's replay", [
                "orderID": order.id, "status": order.status.rawValue, "error": "\(type(of: error))"])
            // A payment that could not be recorded waits with the store.
            if let transactionID = order.transactionID, previous.transactionID != transactionID {
                unplacedTransactions.insert(transactionID)
            }
            return false
        }
        if let transactionID = order.transactionID { markPlaced(transactionID) }
        orders[order.id] = order
        if order.status != previous.status {
            log(.info, "Order moved", ["orderID": order.id, "from": previous.status.rawValue, "to": order.status.rawValue])
        }
        if hasEventListeners {
            for event in OrderStateMachine.events(from: previous, to: order) { emit(event) }
        }
        if OrderStateMachine.endsRetries(order.status) { cancelRetry(orderID: order.id) }
        if order.status == .delivered, previous.status != .delivered { followUpFlaggedRenewals(of: order) }
        // Waiting for approval replaces the payment's expiry with the approval's.
        if order.status == .deferred, previous.status != .deferred { scheduleExpiry(of: order) }
        return true
    }

    /// Whether a save of order `orderID` must be dropped because the engine
    /// was shut down. Work of a shut-down engine can still be running (a
    /// verifier call that answers late), and the next engine on the same
    /// order store owns the orders now: it may have delivered and archived
    /// this one since. A save from the old engine's stale copy once put such
    /// an order back to `purchased`, and the user's paid coins left the
    /// balance. Dropping it loses nothing: the order stays as last saved, and
    /// the store replays its unfinished transaction to the next engine.
    func refusesSaveAfterShutdown(of orderID: String) -> Bool {
        guard isShutDown else { return false }
        log(.info, "A change after shutdown was not saved; the next engine takes the order on", ["orderID": orderID])
        return true
    }

    /// Records the product's type and group on an order made without them (a
    /// transaction adopted before the engine loaded its product), asking the
    /// store within its timeout, before the delivery saves the order: balances
    /// and entitlements are answered from the order alone later, offline, and
    /// a consumable bought once must not be taken for a lifetime purchase.
    /// The store not answering changes nothing; the next attempt asks again.
    ///
    /// - Returns: whether the order's product type was learned now.
    private func learnProductType(of orderID: String) async -> Bool {
        guard let order = orders[orderID], order.productType == nil,
              let product = try? await loadProduct(order.productID, abandonedOnCancel: false),
              var current = orders[orderID], current.productType == nil else { return false }
        current.productType = product.type
        current.subscriptionGroupID = current.subscriptionGroupID ?? product.subscription?.groupID
        orders[orderID] = current
        return true
    }

    /// Asks the verifier, within the configured time. Anything thrown is "try later".
    private func verify(_ order: Order) async -> ReceiptVerdict {
        guard let transaction = order.transaction else { return .retryLater(reason: "no transaction") }
        counters.verificationCalls += 1
        let verifier = configuration.receiptVerifier
        let request = VerificationRequest(order: order, transaction: transaction)
        do {
            let result = try await withTimeout(configuration.limits.verificationTimeout) {
                try await verifier.verify(request)
            }
            return result
        } catch let error as PurchaseKitError where error.code == .timeout {
            return .retryLater(reason: "the verifier did not answer in time")
        } catch {
            return .retryLater(reason: "the verifier failed (\(type(of: error)))")
        }
    }

    @discardableResult
    func finishTransaction(_ transactionID: String, orderID: String) async -> Bool {
        counters.finishCalls += 1
        do {
            // A store that never answers must not hold the order's lock for ever.
            try await withStore { try await $0.finish(transactionID: transactionID) }
            return true
        } catch {
            log(.warning, "The store transaction could not be finished; retried at the next launch", [
                "orderID": orderID, "transactionID": transactionID, "error": "\(type(of: error))"])
            return false
        }
    }

    /// Moves a resting order to the archive and out of the working set.
    func archive(orderID: String) async {
        do {
            try await store.archive(orderID: orderID)
            orders[orderID] = nil
        } catch {
            log(.warning, "An order could not be archived; it stays open", ["orderID": orderID, "error": "\(type(of: error))"])
        }
    }

    /// Calls the store within the store timeout: no store call may hang the
    /// engine (``PurchaseKitError/Code/timeout`` after the deadline). With
    /// `abandonedOnCancel`, a cancelled caller stops waiting at once (`CancellationError`).
    func withStore<T: Sendable>(abandonedOnCancel: Bool = false,
                                _ call: @escaping @Sendable (any PaymentQueue) async throws -> T) async throws -> T {
        let queue = self.queue
        // Callers see this one (a product load, a refund request): nothing
        // retries their call for them, so it must not say "It is retried".
        return try await withTimeout(configuration.limits.storeTimeout, abandonedOnCancel: abandonedOnCancel,
                                     what: "The store did not answer", advice: "Try again when the store is reachable.") {
            try await call(queue)
        }
    }

    /// How the store sees a subscription's renewal, within the store timeout;
    /// nil when the store does not say in time.
    func renewalState(of originalTransactionID: String) async -> SubscriptionRenewalState? {
        (try? await withStore { await $0.renewalState(forOriginalTransactionID: originalTransactionID) }) ?? nil
    }

    /// Runs `body`, giving up after `seconds` on the engine's clock, or, with
    /// `abandonedOnCancel`, as soon as the caller's task is cancelled (a
    /// purchase call before its order exists: nothing waits on the answer).
    /// `what` and `advice` make the ``PurchaseKitError/Code/timeout`` error's message and advice.
    func withTimeout<T: Sendable>(_ seconds: TimeInterval?, abandonedOnCancel: Bool = false,
                                  what: String = "The operation did not end", advice: String = "It is retried.",
                                  _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard abandonedOnCancel else {
            guard seconds != nil else { return try await body() }
            return try await withTimeout(seconds, settling: OneShot<T>(), what: what, advice: advice, body)
        }
        let outcome = OneShot<T>()
        return try await withTaskCancellationHandler {
            try await withTimeout(seconds, settling: outcome, what: what, advice: advice, body)
        } onCancel: {
            outcome.resolve(.failure(CancellationError()))
        }
    }

    /// Runs `body` as a task of its own and waits for `outcome`: the body's
    /// result, the deadline's timeout or whatever else settles it first.
    private func withTimeout<T: Sendable>(_ seconds: TimeInterval?, settling outcome: OneShot<T>,
                                          what: String, advice: String,
                                          _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        // The body runs as a task of its own and is left behind at the
        // deadline: a task group would wait for a call that ignores
        // cancellation (a store that never answers), so it could not time out.
        // Without a time limit the timer has no deadline: only shutdown runs it.
        let timer = setDeadline(seconds.map { clock.now.addingTimeInterval($0) }) { _, firing in
            switch firing {
            case .due:
                outcome.resolve(.failure(PurchaseKitError(.timeout, "\(what) within \(seconds ?? 0) seconds.", advice: advice)))
            case .shutdown:
                outcome.resolve(.failure(Self.shutDownError(orderID: nil)))
            }
        }
        let work = configuration.taskStarter.start {
            do { outcome.resolve(.success(try await body())) } catch { outcome.resolve(.failure(error)) }
        }
        defer {
            cancelDeadline(timer)
            work.cancel()
        }
        return try await outcome.value()
    }

    // MARK: Order timers

    func scheduleRetry(orderID: String, at date: Date) {
        scheduleTimer(orderID: orderID, at: date, event: .deliveryDue)
    }

    /// Schedules the expiry of a payment the store has not answered, or that
    /// waits for approval or an action.
    func scheduleExpiry(of order: Order?) {
        guard let order else { return }
        let expiry = switch order.status {
        case .purchasing: configuration.limits.paymentExpiry
        case .deferred where OrderStateMachine.expiresWhileDeferred(order): configuration.limits.approvalExpiry
        default: TimeInterval?.none
        }
        guard let expiry else { return }
        scheduleTimer(orderID: order.id, at: (order.paymentBeganAt ?? order.createdAt).addingTimeInterval(expiry),
                      event: .paymentExpired)
    }

    /// One timer per order: a delivery retry, or a payment's expiry. A new one
    /// replaces the old.
    private func scheduleTimer(orderID: String, at date: Date, event: OrderEvent) {
        cancelDeadline(timers[orderID]?.deadlineID)
        nextWorkID += 1
        let token = nextWorkID
        let id = setDeadline(date) { engine, firing in
            if firing == .due { engine.timerFired(orderID: orderID, token: token) }
        }
        timers[orderID] = RetryTimer(deadline: date, token: token, event: event, deadlineID: id)
    }

    /// Hands the due event over to tracked work in the same actor turn that
    /// drops the timer, so ``waitUntilIdle()`` never sees a gap between them.
    private func timerFired(orderID: String, token: UInt64) {
        guard let timer = timers[orderID], timer.token == token else { return }
        timers[orderID] = nil
        spawnDelivery(orderID: orderID, timer.event)
    }

    func cancelRetry(orderID: String) {
        cancelDeadline(timers.removeValue(forKey: orderID)?.deadlineID)
    }
}
