import Foundation
import PurchaseKit

/// A transient failure injected into an outside call.
struct InjectedFault: Error, Sendable {
    let what: String
}

/// The order store as one process sees it: killable, with injected write
/// errors. On a simulated disk, the process dies when the disk reaches its
/// crash point (the store's call fails with the dead process's error).
struct ProcessOrderStore: ArchivingOrderStore {
    let world: SimulationWorld
    let kill: ProcessKill
    /// The store this process opened.
    let base: any OrderStore
    let disk: SimulatedDisk?

    func save(_ order: Order) async throws {
        try await kill.perform("save") {
            guard try keeps(order) else { return }
            try await onDisk { try await base.save(order) }
        }
    }

    /// Whether the engine saves an order that comes to rest straight into
    /// the archive here (one call), or saves it and then archives it: drawn
    /// per run (``SimulationWorld/Profile/savesIntoArchive``), so that the
    /// histories cover both. Both stores a process opens can.
    var savesIntoArchive: Bool { world.profile.savesIntoArchive && base is any ArchivingOrderStore }

    /// A save, with its faults, straight into the archive, as one change.
    func saveArchived(_ order: Order) async throws {
        try await kill.perform("save archived") {
            guard try keeps(order) else { return }
            guard let mover = base as? any ArchivingOrderStore else {
                throw InjectedFault(what: "a save into the archive of a store that cannot make one")
            }
            try await onDisk { try await mover.saveArchived(order) }
        }
    }

    /// Whether a save of `order` is to be kept: throws the injected write
    /// error; false when the sabotaged store drops it while saying it kept it.
    private func keeps(_ order: Order) throws -> Bool {
        let plan = world.plan
        if plan.fails("save:\(order.id):\(order.status.rawValue)", rate: plan.rates.saveFails, kind: "order store write error") {
            throw InjectedFault(what: "write")
        }
        // The broken store says "saved" and keeps nothing.
        return !(world.sabotage == .dropsDeliveredSaves && (order.status == .delivered || order.status == .completed))
    }

    func archive(orderID: String) async throws {
        try await kill.perform("archive") { try await onDisk { try await base.archive(orderID: orderID) } }
    }

    func remove(orderID: String) async throws {
        try await kill.perform("remove") { try await onDisk { try await base.remove(orderID: orderID) } }
    }

    func loadOpenOrders() async throws -> OrderLoadReport { try await read { try await base.loadOpenOrders() } }
    func openOrders(forUser userID: String) async throws -> [Order] { try await read { try await base.openOrders(forUser: userID) } }
    func orders(forUser userID: String) async throws -> [Order] { try await read { try await base.orders(forUser: userID) } }
    func order(id: String) async throws -> Order? { try await read { try await base.order(id: id) } }
    func order(transactionID: String) async throws -> Order? {
        try await read {
            try lookupFault("lookup:transaction:\(transactionID)")
            return try await base.order(transactionID: transactionID)
        }
    }
    func orders(originalTransactionID: String) async throws -> [Order] {
        try await read {
            try lookupFault("lookup:purchase:\(originalTransactionID)")
            return try await base.orders(originalTransactionID: originalTransactionID)
        }
    }
    func order(token: String) async throws -> Order? {
        try await read {
            try lookupFault("lookup:token:\(token)")
            return try await base.order(token: token)
        }
    }
    func recordSpend(_ spend: ConsumableSpend) async throws -> ConsumableSpend {
        try await kill.perform("spend") { try await onDisk { try await base.recordSpend(spend) } }
    }
    func spends(forUser userID: String) async throws -> [ConsumableSpend] { try await read { try await base.spends(forUser: userID) } }
    func saveRenewalState(_ record: RenewalStateRecord) async throws {
        try await kill.perform("renewal") { try await onDisk { try await base.saveRenewalState(record) } }
    }
    func renewalStates(forUser userID: String) async throws -> [RenewalStateRecord] { try await read { try await base.renewalStates(forUser: userID) } }

    /// A lookup the store could not answer (a read error): the engine may
    /// not take it for "no such order".
    private func lookupFault(_ key: String) throws {
        let plan = world.plan
        if plan.fails(key, rate: plan.rates.lookupFails, kind: "order store read error") {
            throw InjectedFault(what: "read")
        }
    }

    /// A call that is not counted (a read may still write: a first load
    /// compacts and quarantines).
    private func read<T>(_ body: () async throws -> T) async throws -> T {
        try kill.check()
        return try await onDisk(body)
    }

    /// Runs a call of the store; if the disk reached its crash point during
    /// it, the process is dead and the call fails as a dead process's does.
    private func onDisk<T>(_ body: () async throws -> T) async throws -> T {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        if let disk, disk.isDown {
            await kill.killNow()
            throw ProcessKill.Killed()
        }
        return try result.get()
    }
}

/// The store as one process sees it: killable, with injected transient errors.
/// `add` applies the purchase script the driver chose for this payment.
struct ProcessPaymentQueue: PaymentQueue {
    let world: SimulationWorld
    let kill: ProcessKill
    /// The process's payments in flight, for the one-payment rule.
    let flights: PaymentFlights

    private var base: SimulatedPaymentQueue { world.store }

    func products(for identifiers: Set<String>) async throws -> ProductsResponse {
        try await kill.perform("products") {
            let plan = world.plan
            if plan.fails("products", rate: plan.rates.productsFail, kind: "product request error") {
                throw InjectedFault(what: "products")
            }
            return try await base.products(for: identifiers)
        }
    }

    func canMakePayments() async -> Bool {
        (try? await kill.perform("canMakePayments") { await base.canMakePayments() }) ?? false
    }

    func add(_ payment: Payment) async throws {
        try await flights.carry(payment) { onOutcome in try await addAsProcess(payment, onOutcome: onOutcome) }
        // Only a payment the store took leaves the purchase call waiting; a
        // failed one returns through the call itself.
        world.addLatch.withLock { $0 }?.open()
    }

    private func addAsProcess(_ payment: Payment, onOutcome: @escaping @Sendable () -> Void) async throws {
        try await kill.perform("add") {
            let plan = world.plan
            if plan.fails("add:\(payment.orderToken)", rate: plan.rates.addFails, kind: "store unavailable") {
                throw InjectedFault(what: "add")
            }
            world.paymentTokens.withLock { $0.append(payment.orderToken) }
            if let script = world.nextScript.withLock({ s -> PurchaseScript? in defer { s = nil }; return s }) {
                await base.scriptNextPurchase(script.behavior, faults: script.faults)
            }
            try await base.add(payment, onOutcome: onOutcome)
        }
    }

    func finish(transactionID: String) async throws {
        // Finishing a finished transaction changes nothing; it is not a point
        // worth dying at, and counting it would depend on timing.
        if await base.isFinished(transactionID: transactionID) {
            try kill.check()
            return
        }
        try await kill.perform("finish") {
            let plan = world.plan
            if plan.fails("finish:\(transactionID)", rate: plan.rates.finishFails, kind: "finish error") {
                throw InjectedFault(what: "finish")
            }
            try await base.finish(transactionID: transactionID)
        }
    }

    func restoreCompletedTransactions() async throws -> [StoreTransaction] {
        try kill.check()
        return try await base.restoreCompletedTransactions()
    }

    func revokedTransactions() async throws -> [StoreTransaction] {
        try kill.check()
        return try await base.revokedTransactions()
    }

    func attach(_ observer: any PaymentQueueObserver) async {
        guard !kill.isDead else { return }
        await base.attach(observer)
    }

    func renewalState(forOriginalTransactionID originalTransactionID: String) async -> SubscriptionRenewalState? {
        await base.renewalState(forOriginalTransactionID: originalTransactionID)
    }
}

/// The verifier as one process sees it: killable, with timeouts, server
/// errors, lost replies and forged receipts decided per transaction and attempt.
struct ProcessVerifier: ReceiptVerifier {
    let world: SimulationWorld
    let kill: ProcessKill

    func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
        try await kill.perform("verify") {
            let plan = world.plan
            let transactionID = request.transaction.id
            if plan.isForged(transactionID: transactionID) {
                return .invalid(reason: "the receipt's signature does not match")
            }
            switch plan.verifierFault(transactionID: transactionID) {
            case .timeout?:
                // What the engine sees when the server hangs past its timeout; nothing was applied.
                throw PurchaseKitError(.timeout, "The verification server did not answer in time.", advice: "It is retried.")
            case .serverError?:
                return .retryLater(reason: "server error 503")
            case .throwsError?:
                throw InjectedFault(what: "verify")
            case .replyLost?:
                _ = try await world.server.verify(request)
                throw PurchaseKitError(.verificationUnavailable, "The reply was lost.", advice: "Ask again.")
            case nil:
                if world.sabotage == .deliversWithoutCredit, request.order.productID == SimulationWorld.coins {
                    return .delivered // The broken server says "delivered" and records nothing.
                }
                return try await world.server.verify(request)
            }
        }
    }
}

/// Order ids from the world's counter, failing once the process is dead.
struct ProcessOrderGenerator: OrderGenerator {
    let world: SimulationWorld
    let kill: ProcessKill

    func makeOrderID(for request: OrderRequest) async throws -> String {
        try kill.check()
        return world.makeOrderID()
    }
}
