import XCTest
@testable import PurchaseKit

final class OrderStateMachineTests: XCTestCase {
    private let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    private let machine = OrderStateMachine(retryPolicy: RetryPolicy(attemptBudget: 3, needsAttentionInterval: 3600))

    private func order(_ status: OrderStatus, transaction: Bool = false, finished: Bool = false) -> Order {
        var order = Order(id: "o", productID: "p", userID: "u", token: "tok", createdAt: t0)
        order.status = status
        if transaction { order.transaction = StoreTransaction(id: "t1", productID: "p", purchaseDate: t0, orderToken: "tok") }
        if finished { order.finishedAt = t0 }
        return order
    }

    private var paid: StoreTransaction { StoreTransaction(id: "t1", productID: "p", purchaseDate: t0, orderToken: "tok") }

    func testHappyPathPersistsBeforeEveryExternalCall() {
        var step = machine.step(order(.created), on: .paymentAdded, now: t0, retryDelay: 1)
        XCTAssertEqual(step.order.status, .purchasing)
        XCTAssertEqual(step.actions, [.persist])
        XCTAssertEqual(step.order.paymentBeganAt, t0)

        step = machine.step(step.order, on: .store(.purchased, paid), now: t0, retryDelay: 1)
        XCTAssertEqual(step.order.status, .purchased)
        XCTAssertEqual(step.order.transaction?.id, "t1")
        XCTAssertEqual(step.actions, [.persist, .verify], "the transaction is saved before verification")

        step = machine.step(step.order, on: .verified(.delivered), now: t0, retryDelay: 1)
        XCTAssertEqual(step.order.status, .delivered)
        XCTAssertEqual(step.order.verificationAttempts, 1)
        XCTAssertEqual(step.actions, [.persist, .finish(transactionID: "t1")], "delivery is saved before finishing")

        step = machine.step(step.order, on: .finished, now: t0, retryDelay: 1)
        XCTAssertEqual(step.order.status, .completed)
        XCTAssertTrue(step.order.isFinished)
        XCTAssertEqual(step.actions, [.persist, .archive])
    }

    func testAlreadyDeliveredCountsAsDelivered() {
        let step = machine.step(order(.purchased, transaction: true), on: .verified(.alreadyDelivered), now: t0, retryDelay: 1)
        XCTAssertEqual(step.order.status, .delivered)
    }

    func testTransientFailureNeverFinishesAndSchedulesARetry() {
        let step = machine.step(order(.purchased, transaction: true), on: .verified(.retryLater(reason: "503")), now: t0, retryDelay: 7)
        XCTAssertEqual(step.order.status, .purchased)
        XCTAssertEqual(step.order.nextAttemptAt, t0.addingTimeInterval(7))
        XCTAssertEqual(step.actions, [.persist, .scheduleRetry(at: t0.addingTimeInterval(7))])
        XCTAssertFalse(step.actions.contains { if case .finish = $0 { return true } else { return false } })
    }

    func testBudgetSpentMovesToNeedsAttentionWhichStillRetries() {
        var current = order(.purchased, transaction: true)
        for _ in 0..<3 {
            current = machine.step(current, on: .verified(.retryLater(reason: "timeout")), now: t0, retryDelay: 5).order
        }
        XCTAssertEqual(current.status, .needsAttention)
        XCTAssertEqual(current.nextAttemptAt, t0.addingTimeInterval(3600))
        let due = machine.step(current, on: .deliveryDue, now: t0, retryDelay: 5)
        XCTAssertEqual(due.actions, [.verify])
        let delivered = machine.step(current, on: .verified(.delivered), now: t0, retryDelay: 5)
        XCTAssertEqual(delivered.order.status, .delivered)
    }

    func testInvalidRejectsAndFinishes() {
        let step = machine.step(order(.purchased, transaction: true), on: .verified(.invalid(reason: "forged")), now: t0, retryDelay: 1)
        XCTAssertEqual(step.order.status, .rejected)
        XCTAssertEqual(step.actions, [.persist, .finish(transactionID: "t1")])
        XCTAssertEqual(step.order.lastErrorCode, .verificationRejected)
    }

    func testDuplicateAndLateStoreUpdatesChangeNothing() {
        let purchased = order(.purchased, transaction: true)
        for event: OrderEvent in [.store(.purchasing, nil), .store(.deferred, nil), .store(.purchased, paid),
                                  .store(.cancelled, nil), .store(.failed(.networkError), nil), .paymentAdded] {
            let step = machine.step(purchased, on: event, now: t0, retryDelay: 1)
            XCTAssertTrue(step.isNoChange, "\(event)")
            XCTAssertEqual(step.order, purchased)
        }
        let completed = order(.completed, transaction: true, finished: true)
        XCTAssertTrue(machine.step(completed, on: .store(.purchased, paid), now: t0, retryDelay: 1).isNoChange)
        XCTAssertTrue(machine.step(completed, on: .verified(.delivered), now: t0, retryDelay: 1).isNoChange)
        XCTAssertTrue(machine.step(completed, on: .finished, now: t0, retryDelay: 1).isNoChange)
    }

    func testASecondTransactionNeverReplacesTheFirst() {
        let other = StoreTransaction(id: "t2", productID: "p", purchaseDate: t0, orderToken: "tok")
        let step = machine.step(order(.purchased, transaction: true), on: .store(.purchased, other), now: t0, retryDelay: 1)
        XCTAssertTrue(step.isNoChange)
        XCTAssertEqual(step.order.transaction?.id, "t1")
    }

    func testDeferredGrantsNothingAndCanStillBePaid() {
        let deferred = machine.step(order(.purchasing), on: .store(.deferred, nil), now: t0, retryDelay: 1)
        XCTAssertEqual(deferred.order.status, .deferred)
        XCTAssertEqual(deferred.actions, [.persist])
        XCTAssertNil(deferred.order.transaction)
        let approved = machine.step(deferred.order, on: .store(.purchased, paid), now: t0, retryDelay: 1)
        XCTAssertEqual(approved.order.status, .purchased)
    }

    func testFailureAndCancelRecordTheReasonAndArchive() {
        let failed = machine.step(order(.purchasing), on: .store(.failed(.declined), nil), now: t0, retryDelay: 1)
        XCTAssertEqual(failed.order.status, .failed)
        XCTAssertEqual(failed.order.storeFailureReason, .declined)
        XCTAssertEqual(failed.actions, [.persist, .archive])
        let cancelled = machine.step(order(.purchasing), on: .store(.cancelled, nil), now: t0, retryDelay: 1)
        XCTAssertEqual(cancelled.order.status, .cancelled)
        XCTAssertEqual(cancelled.actions, [.persist, .archive])
    }

    func testRevocationOfACompletedOrder() {
        var revokedTransaction = paid
        revokedTransaction.revocationDate = t0
        revokedTransaction.revocationReason = .other
        let step = machine.step(order(.completed, transaction: true, finished: true), on: .store(.revoked, revokedTransaction), now: t0, retryDelay: 1)
        XCTAssertEqual(step.order.status, .revoked)
        XCTAssertEqual(step.order.transaction?.revocationReason, .other)
        XCTAssertEqual(step.actions, [.persist, .archive])
        // A revocation for some other transaction changes nothing.
        var other = revokedTransaction
        other.id = "t9"
        XCTAssertTrue(machine.step(order(.completed, transaction: true, finished: true), on: .store(.revoked, other), now: t0, retryDelay: 1).isNoChange)
    }

    func testRestoredTransactionIsVerifiedAndFinishedLikeAnyOther() {
        let paidStep = machine.step(order(.created), on: .store(.restored, paid), now: t0, retryDelay: 1)
        XCTAssertEqual(paidStep.order.status, .purchased)
        XCTAssertEqual(paidStep.actions, [.persist, .verify])
        let step = machine.step(paidStep.order, on: .verified(.alreadyDelivered), now: t0, retryDelay: 1)
        XCTAssertEqual(step.order.status, .delivered)
        XCTAssertEqual(step.actions, [.persist, .finish(transactionID: "t1")])
    }

    func testManualFinishPolicyDoesNotFinish() {
        let manual = OrderStateMachine(retryPolicy: .default, finishesAfterDelivery: false)
        let step = manual.step(order(.purchased, transaction: true), on: .verified(.delivered), now: t0, retryDelay: 1)
        XCTAssertEqual(step.actions, [.persist])
        XCTAssertEqual(manual.step(step.order, on: .finishDue, now: t0, retryDelay: 1).actions, [.finish(transactionID: "t1")])
    }

    func testAbandonedCreatedOrderFails() {
        let step = machine.step(order(.created), on: .abandoned, now: t0, retryDelay: 1)
        XCTAssertEqual(step.order.status, .failed)
        XCTAssertTrue(machine.step(order(.purchasing), on: .abandoned, now: t0, retryDelay: 1).isNoChange)
    }

    func testUnassignedOrderIsNotDelivered() {
        var unassigned = order(.needsAttention, transaction: true)
        unassigned.userID = ""
        XCTAssertTrue(machine.step(unassigned, on: .deliveryDue, now: t0, retryDelay: 1).isNoChange)
    }

    /// Every status the machine produces is reachable by a legal move from the input.
    func testEveryStepIsALegalMove() {
        let events: [OrderEvent] = [.paymentAdded, .store(.purchasing, nil), .store(.deferred, nil), .store(.interrupted, nil),
                                    .store(.purchased, paid), .store(.restored, paid), .store(.cancelled, nil),
                                    .store(.failed(.unknown), nil), .store(.revoked, paid), .verified(.delivered),
                                    .verified(.alreadyDelivered), .verified(.invalid(reason: "x")), .verified(.retryLater(reason: "y")),
                                    .finished, .deliveryDue, .finishDue, .abandoned]
        for status in OrderStatus.allCases {
            for hasTransaction in [false, true] {
                for finished in [false, true] {
                    let input = order(status, transaction: hasTransaction, finished: finished)
                    for event in events {
                        let output = machine.step(input, on: event, now: t0, retryDelay: 1).order
                        if output.status != input.status {
                            XCTAssertTrue(OrderTransitionTable.allows(from: input.status, to: output.status),
                                          "\(status) --\(event)--> \(output.status)")
                        }
                    }
                }
            }
        }
    }
}
