import Foundation

// The machine's decisions beyond one step: what launch and the retry
// triggers owe an order, whether the engine finishes a transaction itself
// (the finish policy, decided here and nowhere else), and what a waiting
// purchase call hears. Pure: the engine looks up, asks, and performs.
extension OrderStateMachine {
    /// What launch does with one loaded order.
    public enum LaunchWork: Sendable, Equatable {
        /// Drive the order with this event (a delivery or a finish owed, or
        /// an order the app left before its payment reached the store).
        case drive(OrderEvent)
        /// A payment the store has not answered yet, or one waiting for
        /// approval or an action (see ``OrderStateMachine/expiresWhileDeferred(_:)``):
        /// watch it, so that it expires after the configured time.
        case watchExpiry
        /// Nothing is owed and nothing can still match it: archive it.
        case archive
        /// Nothing to do now.
        case none
    }

    /// What launch owes `order` at `now`. A failed order whose payment
    /// expired stays open while a late payment may still match it: for
    /// `matchingWindow` seconds after its payment began, and, whatever its
    /// age, while `paymentsWaitUnmatched`.
    ///
    /// - Parameters:
    ///   - order: The open order as launch loaded it.
    ///   - now: The clock's time at launch.
    ///   - matchingWindow: How long after its payment began a failed order
    ///     can still be matched by a late charge.
    ///   - paymentsWaitUnmatched: Paid transactions the store holds wait
    ///     without an order, because the order store could not say which
    ///     order holds them or an order's save failed. A late charge is
    ///     matched by its purchase date, not by when it reaches the app: one
    ///     of them may be dated within this order's window, and archived, the
    ///     order could no longer be found for it (a charge without its token
    ///     would then go to whoever is logged in).
    public func launchWork(for order: Order, now: Date, matchingWindow: TimeInterval,
                           paymentsWaitUnmatched: Bool = false) -> LaunchWork {
        switch order.status {
        case .purchased, .needsAttention: return .drive(.deliveryDue)
        case .created: return .drive(.abandoned)
        case .purchasing: return .watchExpiry
        case .deferred where Self.expiresWhileDeferred(order): return .watchExpiry
        case .delivered where finishesAfterDelivery: return .drive(.finishDue)
        case .rejected, .revoked: if owesFinish(order) { return .drive(.finishDue) }
        default: break
        }
        let inMatchingWindow = order.isExpiredPayment
            && (paymentsWaitUnmatched || now.timeIntervalSince(order.paymentBeganAt ?? order.createdAt) < matchingWindow)
        if order.status.isArchivable, order.transaction == nil || order.isFinished, !inMatchingWindow {
            return .archive
        }
        return .none
    }

    /// Whether the engine itself still has to finish the order's transaction:
    /// a rejected, revoked or (with automatic finishing) delivered order whose
    /// paid transaction is not finished. With manual finishing a delivered one
    /// waits for the app.
    public func owesFinish(_ order: Order) -> Bool {
        guard order.status.owesFinish, order.transaction != nil, !order.isFinished else { return false }
        return order.status != .delivered || finishesAfterDelivery
    }

    /// What a retry trigger (login, network back, the app's call) does with
    /// `order`: deliver what is owed, else finish what the engine owes; nil
    /// when it owes neither.
    public func retryEvent(for order: Order) -> OrderEvent? {
        if order.status.owesDelivery { return .deliveryDue }
        return owesFinish(order) ? .finishDue : nil
    }

    /// What the app's own retry of one order does: deliver what is owed, else
    /// try to finish (a no-op when nothing is left to finish). With manual
    /// finishing a delivered transaction is the app's to finish, with
    /// `finish(orderID:)`, never a retry's: it gets a delivery event, which
    /// changes nothing on a delivered order.
    public func manualRetryEvent(for order: Order) -> OrderEvent {
        if order.status.owesDelivery { return .deliveryDue }
        return order.status == .delivered && !finishesAfterDelivery ? .deliveryDue : .finishDue
    }
}

// What the world hears of a saved step, decided here: the engine emits these
// after the save, in this order.
extension OrderStateMachine {
    /// The events a saved move from `previous` to `order` announces: the
    /// change itself, then what it means — a delivery or a revocation changes
    /// the user's entitlements, an order that needs attention is flagged. A
    /// save that moved no status announces nothing.
    public static func events(from previous: Order, to order: Order) -> [PurchaseEvent] {
        guard order.status != previous.status else { return [] }
        var events: [PurchaseEvent] = []
        events.reserveCapacity(3)  // One buffer, never grown: this runs for every move of every order.
        events.append(.orderChanged(order, from: previous.status))
        switch order.status {
        case .needsAttention: events.append(.needsAttention(order))
        case .revoked: events += [.revoked(order), .entitlementsChanged(user: order.userID)]
        case .delivered: events.append(.entitlementsChanged(user: order.userID))
        case .completed where previous.status != .delivered: events.append(.entitlementsChanged(user: order.userID))
        default: break
        }
        return events
    }

    /// Whether a delivery retry scheduled for an order in `status` is void:
    /// nothing is owed any more, and the payment is not waiting for the store.
    public static func endsRetries(_ status: OrderStatus) -> Bool {
        !status.owesDelivery && status != .purchasing
    }
}

extension OrderStateMachine {
    /// Whether an order brought back from the archive to be revoked goes
    /// back there: the revocation did not apply (it was not revoked), and
    /// nothing is owed on it, a finish included (a rejected order whose
    /// finish failed stays open until a retry finishes it).
    public static func returnsToArchive(afterRevoking order: Order) -> Bool {
        order.status != .revoked && order.status.isArchivable && (order.transaction == nil || order.isFinished)
    }
}
