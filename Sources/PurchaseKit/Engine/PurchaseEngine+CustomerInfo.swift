import Foundation

/// The engine's customer info subscribers, and what the store last said about
/// subscription renewals (known only to the store).
struct CustomerWatch {
    struct Watcher {
        var userID: String
        var continuation: AsyncStream<CustomerInfo>.Continuation
        var last: CustomerInfo?
    }

    var watchers: [UInt64: Watcher] = [:]
    var nextID: UInt64 = 0
    var publishScheduled = false
    /// By original transaction id.
    var renewals: [String: KnownRenewalState] = [:]
    /// The users whose renewal states kept by the order store were read into `renewals`.
    var usersWithKeptRenewals: Set<String> = []
    /// The engine timer set for the next expiry of a watched user's info.
    var wakeUp: (deadline: Date, timer: UInt64)?

    static let lockKey = "\u{0}customer-info"
}

extension PurchaseEngine {
    /// The user's ``CustomerInfo``, from the order store alone: it never waits
    /// for the store, so it answers offline, at launch. Product types come from
    /// the orders (recorded when they were made), else the catalog the engine
    /// has loaded, else the stored transactions; renewal facts are those the
    /// store gave last, kept by the order store across launches (see
    /// ``refreshCustomerInfo(user:)``).
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the orders or spends cannot be read.
    public func customerInfo(user userID: String) async throws -> CustomerInfo {
        let orders = try await allOrders(of: userID)
        let facts = await productFacts(for: orders, askingStore: false)
        return try await buildCustomerInfo(userID: userID, orders: orders, facts: facts)
    }

    /// Asks the store what only it knows — the catalog entries of products the
    /// stored orders do not describe, and how each subscription renews
    /// (will it renew, grace period, billing retry) — remembers the answers,
    /// and returns the user's ``CustomerInfo``. Subscribers of
    /// ``customerInfoUpdates(user:)`` get the new value if it changed. What
    /// the store does not answer within the store timeout stays as last known.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the orders or spends cannot be read.
    @discardableResult
    public func refreshCustomerInfo(user userID: String) async throws -> CustomerInfo {
        let orders = try await allOrders(of: userID)
        let facts = await productFacts(for: orders)
        let builder = CustomerInfoBuilder(userID: userID, orders: orders, facts: facts, spends: [], renewals: [:],
                                          nonRenewingDuration: { _ in nil }, now: clock.now)
        for status in builder.subscriptionStatuses().values.sorted(by: { $0.groupID < $1.groupID }) {
            _ = await learnRenewalState(of: status.originalTransactionID, user: userID)
        }
        customerFactsChanged()
        return try await buildCustomerInfo(userID: userID, orders: orders, facts: facts)
    }

    /// Where each of the user's subscription groups stands, in detail (expiration,
    /// will auto-renew, grace period), by group id, after asking the store how
    /// each renews (``refreshCustomerInfo(user:)``).
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the orders cannot be read.
    public func subscriptionDetails(user userID: String) async throws -> [String: SubscriptionGroupStatus] {
        try await refreshCustomerInfo(user: userID).subscriptions
    }

    /// A stream of the user's ``CustomerInfo``: the current value first (from
    /// the order store, as ``customerInfo(user:)``), then every changed value
    /// after it — purchases and renewals delivered, refunds and revocations,
    /// spends, subscriptions and non-renewing subscriptions running out as the
    /// engine's clock passes their end, and what ``refreshCustomerInfo(user:)``
    /// learns (it runs once when the stream starts). Equal values are not
    /// repeated. Cancel the iterating task to unsubscribe. The stream finishes
    /// at ``shutdown()`` (at once, if the engine is shut down already).
    public func customerInfoUpdates(user userID: String) -> AsyncStream<CustomerInfo> {
        let (stream, continuation) = AsyncStream<CustomerInfo>.makeStream(bufferingPolicy: .unbounded)
        guard !isShutDown else {
            continuation.finish()
            return stream
        }
        customerWatch.nextID += 1
        let id = customerWatch.nextID
        customerWatch.watchers[id] = CustomerWatch.Watcher(userID: userID, continuation: continuation, last: nil)
        let starter = configuration.taskStarter
        continuation.onTermination = { [weak self] _ in
            starter.start { [weak self] in await self?.stopWatching(id) }
        }
        spawn { engine in
            await engine.publishCustomerInfo()
            _ = try? await engine.refreshCustomerInfo(user: userID)
        }
        return stream
    }

    /// A completion-handler variant of ``customerInfo(user:)`` for callers
    /// without async, such as UIKit code: `completion` runs on the main actor
    /// (the main thread), once.
    public nonisolated func customerInfo(
        user userID: String,
        completion: @escaping @MainActor @Sendable (Result<CustomerInfo, PurchaseKitError>) -> Void
    ) {
        configuration.taskStarter.start {
            let result: Result<CustomerInfo, PurchaseKitError>
            do {
                result = .success(try await self.customerInfo(user: userID))
            } catch {
                result = .failure(PurchaseKitError.wrap(error, as: .persistenceReadFailed, "The customer info could not be read.",
                                                        advice: "Try again; check the order store's location and permissions."))
            }
            await MainActor.run { completion(result) }
        }
    }

    /// How the store sees a subscription's renewal, remembered for customer
    /// info (and kept by the order store when it changed); when the store does
    /// not answer in time, what it said last, in this process or before.
    func learnRenewalState(of originalTransactionID: String, user userID: String) async -> SubscriptionRenewalState? {
        guard let state = await renewalState(of: originalTransactionID) else {
            return await rememberedRenewals(of: userID)[originalTransactionID]?.state
        }
        let changed = customerWatch.renewals[originalTransactionID]?.state != state
        let now = clock.now
        customerWatch.renewals[originalTransactionID] = KnownRenewalState(state: state, asOf: now)
        if changed {
            do {
                try await store.saveRenewalState(RenewalStateRecord(userID: userID, originalTransactionID: originalTransactionID,
                                                                    state: state, asOf: now))
            } catch {
                log(.warning, "A subscription's renewal state could not be kept; it is asked for again", ["error": "\(type(of: error))"])
            }
        }
        return state
    }

    /// The renewal states known for the user: those the order store kept
    /// (read once per user and process), merged with those heard since; the
    /// newer wins.
    func rememberedRenewals(of userID: String) async -> [String: KnownRenewalState] {
        if customerWatch.usersWithKeptRenewals.insert(userID).inserted {
            do {
                for record in try await store.renewalStates(forUser: userID) {
                    if let known = customerWatch.renewals[record.originalTransactionID], known.asOf > record.asOf { continue }
                    customerWatch.renewals[record.originalTransactionID] = KnownRenewalState(state: record.state, asOf: record.asOf)
                }
            } catch {
                customerWatch.usersWithKeptRenewals.remove(userID)
                log(.warning, "The kept renewal states could not be read", ["user": userID, "error": "\(type(of: error))"])
            }
        }
        return customerWatch.renewals
    }

    // MARK: Publishing

    func buildCustomerInfo(userID: String, orders: [Order], facts: [String: ProductFacts]) async throws -> CustomerInfo {
        let spends = try await storedSpends(of: userID)
        let durations = configuration.policies.nonRenewingDurations
        let catalog = products
        let changes = try await paidChangesByOtherUsers(of: userID, in: orders)
        var builder = CustomerInfoBuilder(
            userID: userID, orders: orders, facts: facts, spends: spends, renewals: await rememberedRenewals(of: userID),
            nonRenewingDuration: { durations[$0] ?? catalog[$0]?.subscription?.period }, now: clock.now,
            credits: configuration.policies.consumableCredits)
        builder.changesByOthers = changes
        let info = builder.build()
        for subscription in info.nonRenewingSubscriptions.values where subscription.expirationDate == nil {
            log(.warning, "A non-renewing subscription has no known length and never expires; set Configuration.nonRenewingDurations",
                ["productID": subscription.productID])
        }
        return info
    }

    /// Called on every event and every spend: subscribers get the new value, if any.
    func customerFactsChanged() {
        guard !isShutDown, !customerWatch.watchers.isEmpty, !customerWatch.publishScheduled else { return }
        customerWatch.publishScheduled = true
        spawn { engine in await engine.publishCustomerInfo() }
    }

    /// Computes the info of every watched user and hands each subscriber the
    /// values that changed, one publication at a time so that no subscriber
    /// gets an older value after a newer one.
    func publishCustomerInfo() async {
        await lockOrder(CustomerWatch.lockKey)
        defer { unlockOrder(CustomerWatch.lockKey) }
        customerWatch.publishScheduled = false
        let users = Set(customerWatch.watchers.values.map(\.userID))
        for userID in users.sorted() {
            let info: CustomerInfo
            do {
                info = try await customerInfo(user: userID)
            } catch {
                log(.warning, "Customer info could not be computed for its subscribers", ["user": userID, "error": "\(type(of: error))"])
                continue
            }
            for (id, watcher) in customerWatch.watchers.sorted(by: { $0.key < $1.key }) where watcher.userID == userID && watcher.last != info {
                watcher.continuation.yield(info)
                customerWatch.watchers[id]?.last = info
            }
        }
        scheduleCustomerWakeUp()
    }

    /// Publishes again when the earliest stored fact of a watched user runs out.
    private func scheduleCustomerWakeUp() {
        let now = clock.now
        let next = customerWatch.watchers.values.compactMap { $0.last.flatMap { CustomerInfoBuilder.nextChange(of: $0, after: now) } }.min()
        if customerWatch.wakeUp?.deadline == next { return }
        cancelDeadline(customerWatch.wakeUp?.timer)
        customerWatch.wakeUp = nil
        guard let next else { return }
        let timer = setDeadline(next) { engine, firing in
            guard firing == .due, engine.customerWatch.wakeUp?.deadline == next else { return }
            engine.customerWatch.wakeUp = nil
            engine.customerFactsChanged()
        }
        customerWatch.wakeUp = (next, timer)
    }

    /// Ends every customer info stream, at ``shutdown()``.
    func finishCustomerWatchers() {
        for watcher in customerWatch.watchers.values { watcher.continuation.finish() }
        customerWatch.watchers.removeAll()
        cancelDeadline(customerWatch.wakeUp?.timer)
        customerWatch.wakeUp = nil
    }

    private func stopWatching(_ id: UInt64) {
        customerWatch.watchers[id] = nil
        if customerWatch.watchers.isEmpty {
            cancelDeadline(customerWatch.wakeUp?.timer)
            customerWatch.wakeUp = nil
        }
    }
}
