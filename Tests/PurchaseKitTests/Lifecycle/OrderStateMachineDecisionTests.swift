import XCTest
@testable import PurchaseKit

/// The machine's decisions beyond a step, for every status: what launch owes
/// an order, what a retry trigger does, who finishes, and what a waiting
/// purchase call hears.
final class OrderStateMachineDecisionTests: XCTestCase {
    private let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    private let automatic = OrderStateMachine()
    private let manual = OrderStateMachine(finishesAfterDelivery: false)

    private func order(_ status: OrderStatus, paid: Bool = false, finished: Bool = false, expired: Bool = false) -> Order {
        var order = Order(id: "o", productID: "p", userID: "u", token: "tok", createdAt: t0)
        order.status = status
        order.paymentBeganAt = t0
        if paid { order.transaction = StoreTransaction(id: "t1", productID: "p", purchaseDate: t0, orderToken: "tok") }
        if finished { order.finishedAt = t0 }
        if expired { order.lastErrorCode = .timeout }
        return order
    }

    private func launch(_ machine: OrderStateMachine, _ order: Order, after seconds: TimeInterval = 60) -> OrderStateMachine.LaunchWork {
        machine.launchWork(for: order, now: t0.addingTimeInterval(seconds), matchingWindow: 3600)
    }

    func testLaunchWorkForEveryStatus() {
        let expected: [OrderStatus: (unpaid: OrderStateMachine.LaunchWork, paid: OrderStateMachine.LaunchWork)] = [
            .created: (.drive(.abandoned), .drive(.abandoned)),
            .purchasing: (.watchExpiry, .watchExpiry),
            .deferred: (.watchExpiry, .watchExpiry),
            .purchased: (.drive(.deliveryDue), .drive(.deliveryDue)),
            .needsAttention: (.drive(.deliveryDue), .drive(.deliveryDue)),
            .delivered: (.drive(.finishDue), .drive(.finishDue)),
            .completed: (.archive, .none), // a completed order was finished; unfinished, it is not archived blind
            .failed: (.archive, .none),
            .cancelled: (.archive, .none),
            .rejected: (.archive, .drive(.finishDue)),
            .revoked: (.archive, .drive(.finishDue)),
        ]
        XCTAssertEqual(Set(expected.keys), Set(OrderStatus.allCases))
        for (status, work) in expected {
            XCTAssertEqual(launch(automatic, order(status)), work.unpaid, "\(status), unpaid")
            XCTAssertEqual(launch(automatic, order(status, paid: true)), work.paid, "\(status), paid")
        }
    }

    /// A subscription's deferred payment may be a change scheduled for the
    /// renewal date: launch does not watch it for expiry, and an expiry changes nothing.
    func testASubscriptionsDeferredPaymentNeverExpires() {
        var deferred = order(.deferred)
        deferred.productType = .autoRenewable
        XCTAssertFalse(OrderStateMachine.expiresWhileDeferred(deferred))
        XCTAssertEqual(launch(automatic, deferred), OrderStateMachine.LaunchWork.none)
        XCTAssertTrue(automatic.step(deferred, on: .paymentExpired, now: deferred.createdAt, retryDelay: 10).isNoChange)
        for type in [ProductType.consumable, .nonConsumable, .nonRenewable] {
            deferred.productType = type
            XCTAssertTrue(OrderStateMachine.expiresWhileDeferred(deferred), "\(type)")
            XCTAssertEqual(launch(automatic, deferred), .watchExpiry, "\(type)")
            XCTAssertEqual(automatic.step(deferred, on: .paymentExpired, now: deferred.createdAt, retryDelay: 10).order.status, .failed)
        }
    }

    func testLaunchLeavesADeliveredOrderToTheAppWithManualFinishing() {
        XCTAssertEqual(launch(manual, order(.delivered, paid: true)), OrderStateMachine.LaunchWork.none)
        XCTAssertEqual(launch(manual, order(.rejected, paid: true)), .drive(.finishDue), "a rejected one is still the engine's to finish")
        XCTAssertEqual(launch(manual, order(.completed, paid: true, finished: true)), .archive)
    }

    func testAFinishedPaidOrderIsArchivedAndAnExpiredPaymentWaitsOutTheMatchingWindow() {
        XCTAssertEqual(launch(automatic, order(.rejected, paid: true, finished: true)), .archive)
        let expired = order(.failed, expired: true)
        XCTAssertTrue(expired.isExpiredPayment)
        XCTAssertEqual(launch(automatic, expired, after: 60), OrderStateMachine.LaunchWork.none, "a late payment may still match it")
        XCTAssertEqual(launch(automatic, expired, after: 3601), .archive)
        // A charge the order store could not place may be this order's, dated within its window.
        let waiting = automatic.launchWork(for: expired, now: t0.addingTimeInterval(30 * 24 * 3600), matchingWindow: 3600,
                                           paymentsWaitUnmatched: true)
        XCTAssertEqual(waiting, OrderStateMachine.LaunchWork.none, "kept open while paid transactions wait unmatched")
        let failedByTheStore = automatic.launchWork(for: order(.failed), now: t0.addingTimeInterval(60), matchingWindow: 3600,
                                                    paymentsWaitUnmatched: true)
        XCTAssertEqual(failedByTheStore, .archive, "only an expired payment waits; one the store refused does not")
    }

    func testRetryTriggersAndWhoFinishes() {
        for status in OrderStatus.allCases {
            for paid in [false, true] {
                let order = order(status, paid: paid)
                let owesFinish = paid && [.delivered, .rejected, .revoked].contains(status)
                XCTAssertEqual(automatic.owesFinish(order), owesFinish, "\(status) paid \(paid)")
                XCTAssertEqual(manual.owesFinish(order), owesFinish && status != .delivered, "\(status) paid \(paid), manual")
                let expected: OrderEvent? = status.owesDelivery ? .deliveryDue : (owesFinish ? .finishDue : nil)
                XCTAssertEqual(automatic.retryEvent(for: order), expected, "\(status) paid \(paid)")
                XCTAssertEqual(automatic.manualRetryEvent(for: order), status.owesDelivery ? .deliveryDue : .finishDue)
                XCTAssertEqual(manual.manualRetryEvent(for: order), status.owesDelivery || status == .delivered ? .deliveryDue : .finishDue,
                               "\(status): with manual finishing a retry never finishes a delivered transaction")
            }
        }
        XCTAssertFalse(automatic.owesFinish(order(.revoked, paid: true, finished: true)), "finished already")
    }

    func testWhatAWaitingCallHearsForEveryStatus() {
        func heard(_ order: Order, after event: OrderEvent = .deliveryDue) -> String {
            switch OrderStateMachine.answer(for: order, after: event) {
            case nil: return "waits"
            case .success(.success)?: return "success"
            case .success(.userCancelled)?: return "cancelled"
            case .success(.pending(_, let reason))?: return "pending \(reason.rawValue)"
            case .failure(let error)?: return "throws \(error.code.rawValue)"
            }
        }
        var retrying = order(.purchased, paid: true)
        retrying.nextAttemptAt = t0
        let expected: [OrderStatus: String] = [
            .created: "waits", .purchasing: "waits", .purchased: "waits",
            .deferred: "pending awaitingApproval", .needsAttention: "pending deliveryRetrying",
            .delivered: "success", .completed: "success", .cancelled: "cancelled",
            .failed: "throws paymentFailed", .rejected: "throws verificationRejected", .revoked: "throws paymentFailed",
        ]
        XCTAssertEqual(Set(expected.keys), Set(OrderStatus.allCases))
        for (status, answer) in expected { XCTAssertEqual(heard(order(status, paid: true)), answer, "\(status)") }
        XCTAssertEqual(heard(retrying), "pending deliveryRetrying", "a paid order with a retry scheduled")
        XCTAssertEqual(heard(order(.deferred), after: .store(.interrupted, nil)), "pending actionRequired")
        XCTAssertEqual(heard(order(.deferred), after: .store(.scheduled, nil)), "pending subscriptionChangeScheduled")
    }

    func testAFailedSaveIsAnsweredByWhatIsSafe() {
        func heard(_ attempted: Order, _ saved: Order) -> String {
            switch OrderStateMachine.answerAfterFailedSave(attempted: attempted, saved: saved) {
            case .success(.success(let order)): return "success \(order.status.rawValue)"
            case .success(.pending(_, let reason)): return "pending \(reason.rawValue)"
            case .success(.userCancelled): return "cancelled"
            case .failure(let error): return "throws \(error.code.rawValue)"
            }
        }
        XCTAssertEqual(heard(order(.completed, paid: true), order(.delivered, paid: true)), "success delivered",
                       "the delivery was saved: only the completed record failed")
        XCTAssertEqual(heard(order(.purchased, paid: true), order(.purchasing)), "pending deliveryRetrying",
                       "paid, and the store replays it")
        XCTAssertEqual(heard(order(.purchasing), order(.created)), "throws persistenceWriteFailed")
    }

    func testWhatASavedMoveAnnounces() {
        func announced(_ from: OrderStatus, _ to: OrderStatus) -> [String] {
            OrderStateMachine.events(from: order(from, paid: true), to: order(to, paid: true)).map { event in
                switch event {
                case .orderChanged(_, let previous): return "changed from \(previous?.rawValue ?? "nil")"
                case .needsAttention: return "needsAttention"
                case .revoked: return "revoked"
                case .entitlementsChanged(let user): return "entitlements \(user)"
                default: return "other"
                }
            }
        }
        XCTAssertEqual(announced(.purchased, .purchased), [], "no move, nothing to say")
        XCTAssertEqual(announced(.created, .purchasing), ["changed from created"])
        XCTAssertEqual(announced(.purchased, .delivered), ["changed from purchased", "entitlements u"])
        XCTAssertEqual(announced(.delivered, .completed), ["changed from delivered"], "the delivery already announced it")
        XCTAssertEqual(announced(.purchased, .completed), ["changed from purchased", "entitlements u"])
        XCTAssertEqual(announced(.completed, .revoked), ["changed from completed", "revoked", "entitlements u"])
        XCTAssertEqual(announced(.purchased, .needsAttention), ["changed from purchased", "needsAttention"])
        XCTAssertEqual(announced(.purchasing, .failed), ["changed from purchasing"])
    }

    func testAnUnpaidPaymentIsFinishedOnlyOnceItsOrdersOutcomeIsSaved() {
        // Still waiting for the store, the order's save of the outcome failed:
        // finished now, the store would never replay the update.
        let waiting: Set<OrderStatus> = [.created, .purchasing, .deferred]
        for status in OrderStatus.allCases {
            XCTAssertEqual(OrderStateMachine.mayFinishUnpaidPayment(of: order(status)), !waiting.contains(status), "\(status)")
        }
        XCTAssertTrue(OrderStateMachine.mayFinishUnpaidPayment(of: nil), "no order waits for it")
    }

    func testARetryEndsOnceNothingIsOwedAndNothingIsWaiting() {
        let keeps: Set<OrderStatus> = [.purchased, .needsAttention, .purchasing]
        for status in OrderStatus.allCases {
            XCTAssertEqual(OrderStateMachine.endsRetries(status), !keeps.contains(status), "\(status)")
        }
    }
}
