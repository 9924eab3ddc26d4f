import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// What a purchase call must pass before its payment reaches the store: the
/// device's permission to pay, and a slot under the limit on purchases at
/// once, which holds through calls that leave the queue early.
final class PurchaseAdmissionTests: XCTestCase {
    /// A device that may not make payments is refused before any order is
    /// made and before any payment reaches the store: the app hides its store
    /// on that answer, and an order or a payment sheet behind it would be a
    /// purchase the device's owner (a parent's Screen Time rule) forbade.
    func testADeviceThatMayNotPayGetsNoOrderAndNoPaymentReachesTheStore() async throws {
        let world = World()
        let queue = InterceptingPaymentQueue(wrapping: world.store)
        let engine = try await world.engine(world.configuration(queue: queue))
        await world.store.setCanMakePayments(false)
        let error = await assertThrows(.paymentsNotAllowed) {
            _ = try await engine.purchase(productID: Catalog.coins, user: "alice")
        }
        XCTAssertNil(error?.orderID, "refused before any order was made")
        XCTAssertTrue(queue.calls(.add).isEmpty, "no payment reached the store")
        let orders = await world.orders.orders(forUser: "alice")
        XCTAssertTrue(orders.isEmpty, "\(orders.map(\.status))")
    }

    /// A call cancelled while it waits for a purchase slot leaves without
    /// freeing a slot it never had: the next call still waits for the payment
    /// holding the only slot. Freeing it would let more payments than the
    /// limit reach the store at once, and every later call of the engine would
    /// run one more at a time than the app asked for.
    func testACallCancelledWhileWaitingForASlotFreesNoSlotForTheNextCall() async throws {
        let world = World()
        let queue = InterceptingPaymentQueue(wrapping: world.store)
        var configuration = world.configuration(queue: queue)
        configuration.limits.maximumConcurrentPurchases = 1
        let engine = try await world.engine(configuration)
        // Alice's payment holds the only slot: the store has not answered it yet.
        await world.store.setHoldsUpdates(true)
        let alice = Task { try await engine.purchase(productID: Catalog.pro, user: "alice") }
        await world.store.waitForPayments(count: 1)

        // Bob's call, cancelled, never gets the slot.
        let bob = Task { try await engine.purchase(productID: Catalog.monthly, user: "bob") }
        bob.cancel()
        _ = await assertThrows(.cancelled) { _ = try await bob.value }

        // Carol's call must wait for Alice's payment: it does not reach the store.
        let carol = Task { try await engine.purchase(productID: Catalog.season, user: "carol") }
        for _ in 0..<1_000 where queue.calls(.canMakePayments).count < 2 {
            await Task.yield()
        }
        XCTAssertEqual(queue.calls(.canMakePayments).count, 1, "one purchase at a time: Carol's call waits for the slot")

        // Alice's payment is answered: Carol's call takes the slot, and both are delivered.
        await world.store.setHoldsUpdates(false)
        await world.store.releaseHeldUpdates()
        let first = try await alice.value
        let second = try await carol.value
        guard case .success = first, case .success = second else { return XCTFail("\(first), \(second)") }
        let credits = await world.creditCounts()
        XCTAssertEqual(credits.values.sorted(), [1, 1], "each paid once, credited once")
    }

    /// A call cancelled while its new order is being saved charges nothing:
    /// past the last check before the order, the payment still never reaches
    /// the store, and the order is failed at once instead of waiting, as
    /// `created`, for the next launch to fail it.
    func testACallCancelledWhileItsOrderIsSavedChargesNothingAndFailsTheOrder() async throws {
        let world = World()
        let saving = Gate()
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            if case .save(let order) = call, order.status == .created { await saving.pass() }
            return .proceed
        }
        let queue = InterceptingPaymentQueue(wrapping: world.store)
        let engine = try await world.engine(world.configuration(store: orders, queue: queue))
        let call = Task { try await engine.purchase(productID: Catalog.coins, user: "alice") }
        await saving.waitForArrivals(1)
        call.cancel()
        saving.open()
        let error = await assertThrows(.cancelled) { _ = try await call.value }
        XCTAssertNotNil(error?.orderID, "the order was made before the call was cancelled")
        await engine.waitUntilIdle()
        XCTAssertTrue(queue.calls(.add).isEmpty, "no payment reached the store")
        let stored = await world.orders.orders(forUser: "alice")
        XCTAssertEqual(stored.map(\.status), [.failed])
    }

    /// An order that could not be marked `purchasing` is never paid: the call
    /// fails, and no payment reaches the store even once the engine's work
    /// has run. A payment for an order saved only as `created` would be
    /// failed as abandoned at the next launch while the store charges it.
    func testAnOrderThatCouldNotBeMarkedPurchasingIsNeverHandedToTheStore() async throws {
        let world = World()
        let queue = InterceptingPaymentQueue(wrapping: world.store)
        let orders = failingSaves(world.orders, statuses: [.purchasing])
        let engine = try await world.engine(world.configuration(store: orders, queue: queue))
        _ = await assertThrows(.persistenceWriteFailed) {
            _ = try await engine.purchase(productID: Catalog.coins, user: "alice")
        }
        await engine.waitUntilIdle()
        XCTAssertTrue(queue.calls(.add).isEmpty, "no payment reached the store")
        let transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty, "nothing was charged")
    }
}
