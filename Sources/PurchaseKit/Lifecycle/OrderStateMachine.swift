import Foundation

/// Something that happened to an order.
public enum OrderEvent: Sendable, Equatable {
    /// The payment was handed to the store.
    case paymentAdded
    /// The store reported on the payment (`transaction` for purchased and restored reports).
    case store(TransactionUpdate.Kind, StoreTransaction?)
    /// The verifier answered (a thrown error arrives as `.retryLater`).
    case verified(ReceiptVerdict)
    /// The store transaction was finished.
    case finished
    /// A delivery attempt is due (a retry timer, a retry trigger, launch).
    case deliveryDue
    /// A delivered, rejected or revoked order's transaction still has to be
    /// finished (launch, retry triggers, manual finish).
    case finishDue
    /// The app stopped before the payment reached the store: nothing was charged.
    case abandoned
    /// The store never answered a payment, or a request for its approval,
    /// within the configured expiry. The order rests as failed; a payment
    /// that still arrives later finds it by its token (failed may still
    /// become purchased).
    case paymentExpired
}

/// What the engine must do after a step, in this order.
public enum OrderAction: Sendable, Equatable {
    /// Write the order durably before anything else happens.
    case persist
    /// Ask the verifier to check and deliver.
    case verify
    /// Finish the store transaction.
    case finish(transactionID: String)
    /// Try the delivery again at this time.
    case scheduleRetry(at: Date)
    /// Move the order to the archive; nothing more is owed.
    case archive
}

/// The order lifecycle as a pure function: an order and an event in, the new
/// order and the actions to perform out. No I/O, no clock reads, no randomness
/// of its own: the engine performs the actions, and tests drive every path
/// without a store.
///
/// Late, duplicate and out-of-order events come out as no change and no
/// action: a `purchasing` report after `purchased` is history, not news.
public struct OrderStateMachine: Sendable {
    /// The retry schedule.
    public var retryPolicy: RetryPolicy
    /// Whether the engine finishes transactions after delivery (true) or the app does.
    public var finishesAfterDelivery: Bool

    /// Creates a machine with a retry policy and a finish policy.
    public init(retryPolicy: RetryPolicy = .default, finishesAfterDelivery: Bool = true) {
        self.retryPolicy = retryPolicy
        self.finishesAfterDelivery = finishesAfterDelivery
    }

    /// The result of one step.
    public struct Step: Sendable, Equatable {
        /// The order after the step.
        public var order: Order
        /// What to do, in order. Empty when the event changed nothing.
        public var actions: [OrderAction]

        /// Whether the event changed nothing.
        public var isNoChange: Bool { actions.isEmpty }
    }

    /// Applies `event` to `order` at `now`. `retryDelay` is the jittered delay
    /// to use if the step schedules a retry.
    public func step(_ order: Order, on event: OrderEvent, now: Date, retryDelay: TimeInterval) -> Step {
        var next = order
        func moved(to status: OrderStatus) -> Bool { Self.move(&next, to: status, at: now) }
        let unchanged = Step(order: order, actions: [])

        switch event {
        case .paymentAdded:
            guard moved(to: .purchasing) else { return unchanged }
            next.paymentBeganAt = next.paymentBeganAt ?? now
            return Step(order: next, actions: [.persist])

        case .store(.purchasing, _):
            guard next.status == .created, moved(to: .purchasing) else { return unchanged }
            next.paymentBeganAt = next.paymentBeganAt ?? now
            return Step(order: next, actions: [.persist])

        case .store(.deferred, _), .store(.interrupted, _), .store(.scheduled, _):
            guard next.status != .deferred, moved(to: .deferred) else { return unchanged }
            if case .store(.interrupted, _) = event {
                next.hint = "Waiting for the user to complete an action with the store."
            } else if case .store(.scheduled, _) = event {
                next.hint = "Waiting for the subscription's renewal date, when the new product begins."
            } else {
                next.hint = "Waiting for approval (Ask to Buy)."
            }
            return Step(order: next, actions: [.persist])

        case .store(.cancelled, _):
            guard moved(to: .cancelled) else { return unchanged }
            next.paymentFinishedAt = now
            next.hint = "The user cancelled."
            next.lastErrorCode = .userCancelled
            return Step(order: next, actions: [.persist, .archive])

        case .store(.failed(let reason), _):
            guard moved(to: .failed) else { return unchanged }
            next.paymentFinishedAt = now
            next.hint = "The store refused the payment: \(reason.explanation)"
            next.lastErrorCode = .paymentFailed
            next.storeFailureReason = reason
            return Step(order: next, actions: [.persist, .archive])

        case .store(.purchased, let transaction?), .store(.restored, let transaction?):
            guard next.transaction == nil else { return unchanged }
            if let problem = Self.quantityProblem(of: transaction, productType: next.productType) {
                // Paid, so kept; impossible, so never delivered.
                next.transaction = transaction
                next.paymentFinishedAt = next.paymentFinishedAt ?? now
                return held(next, problem: problem, now: now)
            }
            guard moved(to: .purchased) else { return unchanged }
            next.transaction = transaction
            next.paymentFinishedAt = next.paymentFinishedAt ?? now
            next.nextAttemptAt = nil
            next.hint = nil
            next.lastErrorCode = nil
            return Step(order: next, actions: [.persist, .verify])

        case .store(.revoked, let transaction?):
            guard next.transaction?.id == transaction.id, moved(to: .revoked) else { return unchanged }
            next.transaction = transaction
            next.nextAttemptAt = nil
            next.hint = "The store revoked the purchase (\(transaction.revocationReason?.rawValue ?? "no reason given"))."
            return Step(order: next, actions: order.isFinished ? [.persist, .archive] : [.persist, .finish(transactionID: transaction.id)])

        case .store:
            return unchanged

        case .deliveryDue:
            guard next.status.owesDelivery, let transaction = next.transaction else { return unchanged }
            if let problem = Self.quantityProblem(of: transaction, productType: next.productType) {
                return held(next, problem: problem, now: now)
            }
            guard !next.userID.isEmpty else { return unchanged }
            return Step(order: next, actions: [.verify])

        case .finishDue:
            // Delivered, rejected and revoked transactions are all owed a finish;
            // a finish that failed once must be tried again, or the store replays
            // the transaction forever.
            guard next.status.owesFinish, !next.isFinished, let transactionID = next.transactionID else { return unchanged }
            return Step(order: next, actions: [.finish(transactionID: transactionID)])

        case .abandoned:
            guard next.status == .created, moved(to: .failed) else { return unchanged }
            next.hint = "The app stopped before the payment reached the store; nothing was charged."
            next.lastErrorCode = .paymentFailed
            return Step(order: next, actions: [.persist, .archive])

        case .paymentExpired:
            let wasDeferred = next.status == .deferred
            guard next.status == .purchasing || (wasDeferred && Self.expiresWhileDeferred(next)),
                  moved(to: .failed) else { return unchanged }
            next.paymentFinishedAt = now
            next.hint = wasDeferred
                ? "The payment waited for approval or for an action at the store and was not answered in time; if it still completes, the order is delivered then."
                : "The store never answered the payment; if it still completes, the order is delivered then."
            next.lastErrorCode = .timeout
            // Not archived: a late payment that lost its token is matched by
            // product and time against the working set, so the expired order
            // stays there for the reconciler's matching window.
            return Step(order: next, actions: [.persist])

        case .verified(let result):
            return verified(result, order: next, now: now, retryDelay: retryDelay)

        case .finished:
            guard !next.isFinished else { return unchanged }
            next.finishedAt = now
            next.updatedAt = now
            if next.status == .delivered { _ = moved(to: .completed) }
            let archivable = next.status.isArchivable
            return Step(order: next, actions: archivable ? [.persist, .archive] : [.persist])
        }
    }

    /// Whether a `deferred` order expires (after `approvalExpiry`): a payment
    /// waiting for approval (Ask to Buy) or for the user's action at the
    /// store, which the store may never answer. Not a subscription's: its
    /// payment may be a change the store scheduled for the renewal date,
    /// answered then, however far away, and nothing saved with the order
    /// tells the two apart after a relaunch.
    public static func expiresWhileDeferred(_ order: Order) -> Bool {
        order.status == .deferred && order.productType != .autoRenewable
    }

    /// Whether a failed or cancelled payment the store keeps in its queue may
    /// be finished now: its order's outcome is saved (it rests failed or
    /// cancelled, or a paid transaction has overtaken it), or no order waits
    /// for it. While the order still waits for the store, its save failed:
    /// the store must replay the update.
    public static func mayFinishUnpaidPayment(of order: Order?) -> Bool {
        guard let order else { return true }
        switch order.status {
        case .created, .purchasing, .deferred: return false
        default: return true
        }
    }

    private func verified(_ result: ReceiptVerdict, order: Order, now: Date, retryDelay: TimeInterval) -> Step {
        guard order.status.owesDelivery, let transaction = order.transaction,
              Self.quantityProblem(of: transaction, productType: order.productType) == nil else {
            return Step(order: order, actions: [])
        }
        let transactionID = transaction.id
        var next = order
        // Saturating: a stored counter at Int.max must not trap.
        next.verificationAttempts = next.verificationAttempts < Int.max ? next.verificationAttempts + 1 : Int.max
        next.updatedAt = now
        switch result {
        case .delivered, .alreadyDelivered:
            guard Self.move(&next, to: .delivered, at: now) else { return Step(order: order, actions: []) }
            next.nextAttemptAt = nil
            next.hint = nil
            next.lastErrorCode = nil
            return Step(order: next, actions: finishesAfterDelivery ? [.persist, .finish(transactionID: transactionID)] : [.persist])
        case .invalid(let reason):
            guard Self.move(&next, to: .rejected, at: now) else { return Step(order: order, actions: []) }
            next.nextAttemptAt = nil
            next.hint = "The verifier rejected the receipt: \(reason)"
            next.lastErrorCode = .verificationRejected
            return Step(order: next, actions: next.isFinished ? [.persist, .archive] : [.persist, .finish(transactionID: transactionID)])
        case .retryLater(let reason):
            next.lastErrorCode = .verificationUnavailable
            if next.verificationAttempts >= retryPolicy.attemptBudget {
                if next.status != .needsAttention {
                    guard Self.move(&next, to: .needsAttention, at: now) else { return Step(order: order, actions: []) }
                }
                next.hint = "Delivery failed \(next.verificationAttempts) times (last: \(reason)); retried on the next trigger."
                if let interval = retryPolicy.needsAttentionInterval {
                    next.nextAttemptAt = now.addingTimeInterval(interval)
                } else {
                    next.nextAttemptAt = nil
                }
            } else {
                next.hint = "The verifier could not answer (\(reason)); retrying."
                next.nextAttemptAt = now.addingTimeInterval(retryDelay)
            }
            var actions: [OrderAction] = [.persist]
            if let at = next.nextAttemptAt { actions.append(.scheduleRetry(at: at)) }
            return Step(order: next, actions: actions)
        }
    }

    /// The one place a status changes: through the transition table, or not at all.
    static func move(_ order: inout Order, to status: OrderStatus, at now: Date) -> Bool {
        guard OrderTransitionTable.allows(from: order.status, to: status) else { return false }
        order.status = status
        order.updatedAt = now
        return true
    }
}

extension OrderStatus {
    /// Whether a transaction in this status is finished by the engine once
    /// nothing more is owed: delivered (with automatic finishing), rejected, revoked.
    var owesFinish: Bool { self == .delivered || self == .rejected || self == .revoked }
}
