import XCTest
@testable import PurchaseKit

/// The bookkeeping of payments in flight: one per user and product, counted
/// from the purchase call until the store lets go of the payment or the
/// payment has its outcome, whichever comes first.
final class TaskQueueTests: XCTestCase {
    private let alice = TaskQueue.Key(userID: "alice", productID: "coins")

    func testAPaymentStaysInFlightWhileTheStoreTakesItAfterItsCallLeft() {
        var queue = TaskQueue(limit: 4)
        queue.reserve(alice)
        queue.startHanding(alice, orderID: "order-1")
        _ = queue.release(alice, hadSlot: false) // the call was answered at its store timeout
        XCTAssertTrue(queue.isBusy(alice), "the store still takes the payment")
        _ = queue.endHanding(alice, orderID: "order-1")
        XCTAssertFalse(queue.isBusy(alice))
    }

    func testAReservationIsRefusedWhileTheKeyIsInFlightForEitherReason() {
        var queue = TaskQueue(limit: 4)
        XCTAssertTrue(queue.tryReserve(alice))
        XCTAssertFalse(queue.tryReserve(alice), "its purchase call runs")
        XCTAssertTrue(queue.tryReserve(TaskQueue.Key(userID: "bob", productID: "coins")), "another user's key is free")
        queue.startHanding(alice, orderID: "order-1")
        _ = queue.release(alice, hadSlot: false)
        XCTAssertFalse(queue.tryReserve(alice), "the store still takes its payment")
        // The refusal kept the payment being handed over: its end frees the key.
        XCTAssertTrue(queue.endHanding(alice, orderID: "order-1").isEmpty)
        XCTAssertFalse(queue.isBusy(alice))
        XCTAssertTrue(queue.tryReserve(alice))
    }

    func testAnEarlierPaymentLeavingTheStoreLateDoesNotFreeTheNextOne() {
        var queue = TaskQueue(limit: 4)
        // The first payment has its outcome before the store's `add` returned.
        queue.reserve(alice)
        queue.startHanding(alice, orderID: "order-1")
        _ = queue.endHanding(alice, orderID: "order-1")
        _ = queue.release(alice, hadSlot: false)
        XCTAssertFalse(queue.isBusy(alice), "a payment with its outcome is not in flight")
        // The next payment is handed over and its call answered at its store timeout.
        queue.reserve(alice)
        queue.startHanding(alice, orderID: "order-2")
        _ = queue.release(alice, hadSlot: false)
        // Now the store's `add` of the first payment returns.
        let woken = queue.endHanding(alice, orderID: "order-1")
        XCTAssertTrue(woken.isEmpty)
        XCTAssertTrue(queue.isBusy(alice), "the second payment is still in flight")
        _ = queue.endHanding(alice, orderID: "order-2")
        XCTAssertFalse(queue.isBusy(alice))
    }
}
