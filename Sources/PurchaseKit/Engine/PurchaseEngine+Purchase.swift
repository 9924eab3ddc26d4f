import Foundation

extension PurchaseEngine {
    /// Buys a product for a user and waits until the order comes to rest.
    ///
    /// The order is made by the order generator and saved before the store
    /// sees the payment; the payment carries the order's token; the
    /// transaction is saved before verification; it is finished only after
    /// the delivery is recorded.
    ///
    /// - Returns: `.success` (delivered and finished), `.userCancelled`, or
    ///   `.pending` (Ask to Buy, a user action, delivery retrying, store timeout).
    /// - Throws: ``PurchaseKitError`` — `paymentsNotAllowed`,
    ///   `invalidProductIdentifiers`, `productRequestFailed`, `purchaseInProgress`,
    ///   `orderGenerationFailed`, `persistenceWriteFailed`, `paymentFailed`,
    ///   `verificationRejected`, `storeUnavailable`, `invalidConfiguration`
    ///   (``start()`` not called).
    ///
    /// A `promotionalOffer` the app's server signed is passed to the store
    /// untouched; the store refuses an invalid one (``StoreFailureReason/invalidOffer``)
    /// or one the user may not have (``StoreFailureReason/ineligibleForOffer``),
    /// thrown as `paymentFailed` with that `storeReason`. Buying another
    /// subscription of a group the user holds is an upgrade, downgrade or
    /// crossgrade: one that waits for the next renewal date answers
    /// `.pending(order, .subscriptionChangeScheduled)` and completes when its transaction arrives then.
    public func purchase(productID: String, user userID: String, quantity: Int = 1, metadata: [String: String] = [:],
                         promotionalOffer: SignedOffer? = nil) async throws -> PurchaseResult {
        try await purchase(productID: productID, user: userID, quantity: quantity, metadata: metadata,
                           promotionalOffer: promotionalOffer, source: .purchase)
    }

    /// A purchase whose order records `source` (a promoted purchase the app accepted is `storeInitiated`).
    func purchase(productID: String, user userID: String, quantity: Int, metadata: [String: String],
                  promotionalOffer: SignedOffer?, source: OrderSource) async throws -> PurchaseResult {
        guard started else {
            throw PurchaseKitError(.invalidConfiguration, "The purchase engine was not started.",
                                   advice: "Call start() at launch, before any purchase.")
        }
        try ensureRunning()
        guard quantity >= 1 else {
            throw PurchaseKitError(.invalidConfiguration, "A purchase must be for at least one unit; got \(quantity).",
                                   advice: "Pass a positive quantity.", keyPath: "quantity")
        }
        guard !userID.isEmpty else {
            throw PurchaseKitError.emptyUserID("A purchase")
        }
        let key = TaskQueue.Key(userID: userID, productID: productID)
        try await enterQueue(key)
        var hasSlot = false
        do {
            try await takeSlot()
            hasSlot = true
            try ensureNotCancelled()
            let result = try await runPurchase(key: key, quantity: quantity, metadata: metadata, offer: promotionalOffer,
                                               source: source)
            leaveQueue(key, hadSlot: true)
            return result
        } catch {
            leaveQueue(key, hadSlot: hasSlot)
            throw error
        }
    }

    private func enterQueue(_ key: TaskQueue.Key) async throws {
        while !taskQueue.tryReserve(key) {
            // Woken by a shutdown: the payment in flight may never be let go of.
            try ensureRunning()
            if configuration.policies.duplicatePurchasePolicy == .reject {
                throw PurchaseKitError(
                    .purchaseInProgress, "A payment for '\(key.productID)' is already in flight for this user.",
                    advice: "Wait for the first purchase to finish; its result also arrives as an event.")
            }
            try await waitForTurn(.key(key))
        }
    }

    private func takeSlot() async throws {
        while !taskQueue.hasFreeSlot {
            try ensureRunning()
            try await waitForTurn(.slot)
        }
        taskQueue.takeSlot()
    }

    /// Waits in the task queue until woken. A cancelled call stops waiting at
    /// once: it may queue behind a payment the store holds for hours, and it
    /// has no order yet, so nothing is left behind. A call woken before its
    /// cancellation was seen takes its turn, and leaves it through the
    /// caller's own cancellation check, which wakes the next one.
    private func waitForTurn(_ turn: TaskQueue.Turn) async throws {
        try ensureNotCancelled()
        let id = taskQueue.nextWaiterID()
        let starter = configuration.taskStarter
        let woken = await withTaskCancellationHandler {
            // Names `self`, so that the closure runs on the engine's actor.
            await suspend { self.taskQueue.wait(for: turn, TaskQueue.Waiter(id: id, continuation: $0)) }
        } onCancel: { [weak self] in
            starter.start { [weak self] in await self?.stopWaiting(id) }
        }
        if !woken { throw PurchaseKitError.callCancelledBeforeOrder() }
    }

    private func stopWaiting(_ id: UInt64) {
        taskQueue.removeWaiter(id)?.resume(returning: false)
    }

    /// Wakes every call waiting in the task queue at shutdown; each throws
    /// ``PurchaseKitError/Code/engineShutDown``.
    func wakeQueuedCalls() {
        for waiter in taskQueue.removeAllWaiters() { waiter.resume(returning: true) }
    }

    /// Throws ``PurchaseKitError/Code/cancelled`` when the call's task was
    /// cancelled; for the steps before its order exists, where leaving
    /// charges nothing and leaves nothing behind.
    private func ensureNotCancelled() throws(PurchaseKitError) {
        if Task.isCancelled { throw PurchaseKitError.callCancelledBeforeOrder() }
    }

    private func leaveQueue(_ key: TaskQueue.Key, hadSlot: Bool) {
        for waiter in taskQueue.release(key, hadSlot: hadSlot) { waiter.resume(returning: true) }
    }

    private func runPurchase(key: TaskQueue.Key, quantity: Int, metadata: [String: String],
                             offer: SignedOffer?, source: OrderSource) async throws -> PurchaseResult {
        try ensureRunning()
        let allowed: Bool
        do {
            allowed = try await withStore(abandonedOnCancel: true) { await $0.canMakePayments() }
        } catch {
            try ensureRunning()
            try ensureNotCancelled()
            throw PurchaseKitError(.timeout, "The store did not say in time whether this device may make payments.",
                                   advice: "Nothing was charged. Try again when the store is reachable.")
        }
        guard allowed else {
            throw PurchaseKitError(.paymentsNotAllowed, "This device or account may not make payments.",
                                   advice: "Hide the store, or tell the user to check Screen Time restrictions or their account.")
        }
        try ensureNotCancelled()
        let product = try await loadProduct(key.productID)
        try ensureNotCancelled()
        try product.validatePurchaseQuantity(quantity)

        let request = OrderRequest(productID: product.id, userID: key.userID, quantity: quantity, metadata: metadata)
        let orderID: String
        do {
            orderID = try await configuration.orderGenerator.makeOrderID(for: request)
        } catch {
            try ensureNotCancelled()
            throw PurchaseKitError.wrap(error, as: .orderGenerationFailed, "No order could be created for '\(product.id)'.",
                                        advice: "Nothing was charged. Check the connection to the order server and try again.")
        }
        try ensureNotCancelled()
        let order = try await saveNewOrder(id: orderID, product: product, key: key, quantity: quantity,
                                           metadata: metadata, source: source)
        emit(.orderChanged(order, from: nil))
        log(.info, "Order created", ["orderID": orderID, "productID": product.id, "userID": key.userID])

        // A call cancelled before the payment reached the store charges nothing.
        guard !Task.isCancelled else {
            await drive(orderID: orderID, .abandoned)
            throw PurchaseKitError.callCancelled(orderID: orderID)
        }
        calls.open(orderID)
        await drive(orderID: orderID, .paymentAdded)
        let marked = orders[orderID]
        guard let marked, let token = marked.token, marked.status == .purchasing else {
            // The order could not be marked as purchasing (its save failed): do not charge.
            cancelDeadline(calls.close(orderID))
            // Or the engine was shut down meanwhile, which saves nothing more.
            try ensureRunning(orderID: orderID)
            throw PurchaseKitError(.persistenceWriteFailed, "Order '\(orderID)' could not be saved before payment.",
                                   advice: "Nothing was charged. Free some storage and try again.", orderID: orderID)
        }
        startStoreTimeout(orderID: orderID)
        scheduleExpiry(of: marked)
        // Shut down while the order was being marked: nothing was charged, and
        // the `purchasing` order expires at the next launch.
        do { try ensureRunning(orderID: orderID) } catch {
            cancelDeadline(calls.close(orderID))
            throw error
        }
        // The store takes the payment as separate work: a store whose `add`
        // never returns must not hold this call past its store timeout.
        let payment = Payment(productID: product.id, quantity: quantity, orderToken: token, userID: key.userID,
                              promotionalOffer: offer)
        // Until the store lets go of it, the payment stays in flight for its
        // user and product, even once this call is answered at its store timeout.
        taskQueue.startHanding(key, orderID: orderID)
        spawn { engine in await engine.hand(payment, orderID: orderID, key: key) }
        // A payment with an outcome is no longer in flight, even when the
        // store answered it before `add` returned: a second purchase right
        // after a first that succeeded or failed must not hear purchaseInProgress.
        do {
            let result = try await waitForResult(orderID: orderID)
            if !result.mayStillBeTaken { paymentLeftTheStore(key, orderID: orderID) }
            return result
        } catch let error as PurchaseKitError where error.code == .paymentFailed || error.code == .verificationRejected {
            paymentLeftTheStore(key, orderID: orderID)
            throw error
        }
    }

    /// Makes and saves the order of a purchase, refusing an id an order has
    /// already. Holds the order's lock from the check to the save: the engine
    /// is re-entrant at every await in between, and two calls the generator
    /// gave one id both found it free, then the second one's order replaced
    /// the first one's while its payment was on its way to the store.
    private func saveNewOrder(id orderID: String, product: StoreProduct, key: TaskQueue.Key, quantity: Int,
                              metadata: [String: String], source: OrderSource) async throws -> Order {
        await lockOrder(orderID)
        defer { unlockOrder(orderID) }
        if (try? await currentOrder(orderID)) != nil {
            throw PurchaseKitError(.orderGenerationFailed, "The order generator returned the id '\(orderID)' of an existing order.",
                                   advice: "Nothing was charged. Order ids must be unique; fix the order generator.", orderID: orderID)
        }
        let newToken = await makeToken()
        try ensureRunning()
        let order = OrderStateMachine.purchaseOrder(id: orderID, product: product, userID: key.userID, token: newToken,
                                                    quantity: quantity, source: source, metadata: metadata, now: clock.now)
        do {
            try await store.save(order)
        } catch {
            throw PurchaseKitError.wrap(error, as: .persistenceWriteFailed, "Order '\(orderID)' could not be saved.",
                                        advice: "Nothing was charged. Free some storage and try again.", orderID: orderID)
        }
        orders[orderID] = order
        return order
    }

    private func paymentLeftTheStore(_ key: TaskQueue.Key, orderID: String) {
        for waiter in taskQueue.endHanding(key, orderID: orderID) { waiter.resume(returning: true) }
    }

    /// Hands the payment to the store; a store that will not take it fails the order.
    private func hand(_ payment: Payment, orderID: String, key: TaskQueue.Key) async {
        defer { paymentLeftTheStore(key, orderID: orderID) }
        do {
            try await queue.add(payment)
        } catch {
            log(.warning, "The store did not take the payment", ["orderID": orderID, "error": "\(type(of: error))"])
            var wrapped = PurchaseKitError.wrap(error, as: .storeUnavailable, "The store did not take the payment for order '\(orderID)'.",
                                                advice: "Nothing was charged. Try again when the store is reachable.", orderID: orderID)
            // A store's own error names what the store knew (at most the
            // order token, a secret), not the order.
            wrapped.orderID = orderID
            // Answered before the order is failed, whose answer would be "the
            // store refused the payment": it refused nothing, it was not reached.
            // The store let go of the payment: the next one may start.
            resolveWaiter(orderID: orderID, with: .failure(wrapped))
            paymentLeftTheStore(key, orderID: orderID)
            await drive(orderID: orderID, .store(.failed(.unknown), nil))
        }
    }

    /// Loads a product (cached), turning unknown ids into a typed error. A
    /// purchase call abandons the store's answer when its task is cancelled
    /// (no order exists yet); a delivery waits for it, within the store timeout.
    func loadProduct(_ productID: String, abandonedOnCancel: Bool = true) async throws -> StoreProduct {
        if let product = products[productID] { return product }
        let response: ProductsResponse
        do {
            response = try await withStore(abandonedOnCancel: abandonedOnCancel) { try await $0.products(for: [productID]) }
        } catch {
            try ensureRunning()
            try ensureNotCancelled()
            var wrapped = PurchaseKitError.wrap(error, as: .productRequestFailed, "The store could not load product '\(productID)'.",
                                                advice: "Check the network and try again.")
            // Before any order: the purchase ends here, and charged nothing.
            if wrapped.code == .timeout { wrapped.advice = "Nothing was charged. " + wrapped.advice }
            throw wrapped
        }
        for product in response.products { products[product.id] = product }
        guard let product = products[productID] else {
            throw PurchaseKitError.invalidProductIdentifiers(response.invalidProductIDs.isEmpty ? [productID] : response.invalidProductIDs)
        }
        return product
    }

    /// A fresh order token that no open or archived order holds: unguessable
    /// bits make a repeat all but impossible, and the check makes it impossible
    /// even for an injected generator.
    private func makeToken() async -> String {
        while true {
            let token = tokens.next()
            if orders.holds(token: token) { continue }
            if (try? await store.order(token: token)) != nil { continue }
            return token
        }
    }

    private func startStoreTimeout(orderID: String) {
        guard let timeout = configuration.limits.storeTimeout else { return }
        guard calls.isWaiting(orderID) else { return }
        let deadlineID = setDeadline(clock.now.addingTimeInterval(timeout)) { engine, firing in
            // At shutdown the waiting call is answered with the other waiting calls.
            guard firing == .due else { return }
            engine.spawn { engine in await engine.storeTimedOut(orderID: orderID) }
        }
        calls.setDeadline(deadlineID, for: orderID)
    }

    private func storeTimedOut(orderID: String) async {
        guard calls.isWaiting(orderID) else { return }
        log(.warning, "The store did not answer in time; the purchase continues in the background", ["orderID": orderID])
        if let order = try? await currentOrder(orderID) {
            resolveWaiter(orderID: orderID, with: .success(.pending(order, .storeTimeout)))
        } else {
            // Whatever happened to the order, the call must not wait for ever.
            resolveWaiter(orderID: orderID, with: .failure(PurchaseKitError(
                .timeout, "The store did not answer in time for order '\(orderID)'.",
                advice: "The payment may still complete; its result arrives as events.", orderID: orderID)))
        }
    }

    /// Waits for the order's result. A cancelled caller is answered at once
    /// with ``PurchaseKitError/Code/cancelled``; the order carries on.
    private func waitForResult(orderID: String) async throws -> PurchaseResult {
        if let answer = calls.takeEarlyAnswer(orderID) { return try answer.get() }
        let starter = configuration.taskStarter
        return try await withTaskCancellationHandler {
            try await suspendThrowing { continuation in
                calls.suspend(orderID, on: continuation, unknown: .callCancelled(orderID: orderID))?.resume()
                if Task.isCancelled { resolveWaiter(orderID: orderID, with: .failure(.callCancelled(orderID: orderID))) }
            }
        } onCancel: { [weak self] in
            starter.start { [weak self] in await self?.callCancelled(orderID: orderID) }
        }
    }

    private func callCancelled(orderID: String) {
        guard calls.isSuspended(orderID) else { return }
        log(.info, "A purchase call was cancelled; its order carries on", ["orderID": orderID])
        resolveWaiter(orderID: orderID, with: .failure(.callCancelled(orderID: orderID)))
    }

    /// Hands `result` to the purchase call waiting on the order, if any.
    func resolveWaiter(orderID: String, with result: Result<PurchaseResult, PurchaseKitError>) {
        guard let (deadlineID, resumption) = calls.answer(orderID, with: result) else { return }
        cancelDeadline(deadlineID)
        resumption?.resume()
    }

    /// Settles the waiting call once the order rests. The caller has seen
    /// that a call waits; one answered meanwhile takes no second answer
    /// (``resolveWaiter(orderID:with:)``).
    func settleWaiter(for order: Order, after event: OrderEvent) {
        guard let outcome = OrderStateMachine.answer(for: order, after: event) else { return }
        resolveWaiter(orderID: order.id, with: outcome)
    }
}

private extension PurchaseResult {
    /// Whether the store may still be taking the payment: it has not answered
    /// (the store timeout came first). Every other answer is its outcome.
    var mayStillBeTaken: Bool {
        if case .pending(_, .storeTimeout) = self { return true }
        return false
    }
}
