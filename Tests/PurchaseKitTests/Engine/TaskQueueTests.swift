import XCTest
@testable import PurchaseKit

/// The bookkeeping of payments in flight: one per user and product, counted
/// from the purchase call until the store lets go of the payment or the
/// payment has its outcome, whichever comes first.
final class TaskQueueTests: XCTestCase {
    private let alice = TaskQueue.Key(userID: "alice", productID: "coins")

    func testAPaymentStaysInFlightWhileTheStoreTakesItAfterItsCallLeft() {
        var queue = TaskQueue(limit: 4)
        XCTAssertTrue(queue.tryReserve(alice))
        queue.startHanding(alice, orderID: "order-1")
        _ = queue.release(alice, hadSlot: false) // the call was answered at its store timeout
        XCTAssertTrue(queue.isBusy(alice), "the store still takes the payment")
        _ = queue.endHanding(alice, orderID: "order-1")
        XCTAssertFalse(queue.isBusy(alice))
    }

    func testAReservationIsRefusedWhileTheKeyIsInFlightForEitherReason() async {
        let alice = self.alice
        let queue = Locked(TaskQueue(limit: 4))
        XCTAssertTrue(queue.withLock { $0.tryReserve(alice) })
        XCTAssertFalse(queue.withLock { $0.tryReserve(alice) }, "its purchase call runs")
        XCTAssertTrue(queue.withLock { $0.tryReserve(TaskQueue.Key(userID: "bob", productID: "coins")) }, "another user's key is free")
        queue.withLock { $0.startHanding(alice, orderID: "order-1") }
        XCTAssertTrue(queue.withLock { $0.release(alice, hadSlot: false) }.isEmpty, "the store still takes its payment")
        XCTAssertFalse(queue.withLock { $0.tryReserve(alice) }, "refused while the store takes its payment")
        XCTAssertTrue(queue.withLock { $0.isBusy(alice) }, "the refusal left the payment in flight")
        // A second call waits for the key; the payment leaving the store wakes it.
        let waiter = Task {
            await suspend { continuation in
                queue.withLock { $0.wait(for: .key(alice), TaskQueue.Waiter(id: $0.nextWaiterID(), continuation: continuation)) }
            }
        }
        while queue.withLock({ $0.waiterCount }) < 1 { await Task.yield() }
        XCTAssertTrue(queue.withLock { $0.endHanding(alice, orderID: "order-2") }.isEmpty, "another payment's end frees nothing")
        let woken = queue.withLock { $0.endHanding(alice, orderID: "order-1") }
        XCTAssertEqual(woken.count, 1, "the refusal kept the payment being handed over: its end frees the key")
        woken.forEach { $0.resume(returning: true) }
        // Whatever went wrong above, the waiting call must not hang the test.
        queue.withLock { $0.removeAllWaiters() }.forEach { $0.resume(returning: false) }
        let wasWoken = await waiter.value
        XCTAssertTrue(wasWoken, "woken by the payment's end, not by the clean-up")
        XCTAssertFalse(queue.withLock { $0.isBusy(alice) })
        XCTAssertTrue(queue.withLock { $0.tryReserve(alice) })
    }

    func testAnEarlierPaymentLeavingTheStoreLateDoesNotFreeTheNextOne() {
        var queue = TaskQueue(limit: 4)
        // The first payment has its outcome before the store's `add` returned.
        XCTAssertTrue(queue.tryReserve(alice))
        queue.startHanding(alice, orderID: "order-1")
        _ = queue.endHanding(alice, orderID: "order-1")
        _ = queue.release(alice, hadSlot: false)
        XCTAssertFalse(queue.isBusy(alice), "a payment with its outcome is not in flight")
        // The next payment is handed over and its call answered at its store timeout.
        XCTAssertTrue(queue.tryReserve(alice))
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
