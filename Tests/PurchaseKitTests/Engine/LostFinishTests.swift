import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
import XCTest

/// A store that acknowledged a finish it did not keep: the engine finished,
/// recorded and archived the order, yet the store still reports the paid
/// transaction as unfinished at the next launch. The replay is a duplicate
/// of an order that is over: it is finished again, never credited again,
/// and never given a second order.
final class LostFinishTests: XCTestCase {
    private let month: TimeInterval = 31 * 86_400

    /// The world's store, except that while `forgets` holds, every finish is
    /// answered as done without reaching the store.
    private func forgetfulStore(_ world: World, forgets: Locked<Bool>) -> InterceptingPaymentQueue {
        InterceptingPaymentQueue(wrapping: world.store) { call in
            if case .finish = call, forgets.withLock({ $0 }) { return .answer(.done) }
            return .proceed
        }
    }

    func testAPurchaseTheStoreStillReportsAfterItsOrderWasArchivedIsFinishedAgainAtTheNextLaunch() async throws {
        let world = World()
        let forgets = Locked(true)
        let first = try await world.engine(world.configuration(queue: forgetfulStore(world, forgets: forgets)))
        let result = try await first.purchase(productID: Catalog.coins, user: "alice")
        guard case .success(let order) = result else { return XCTFail("\(result)") }
        await first.waitUntilIdle()
        let archived = await world.orders.archivedOrders()
        XCTAssertEqual(archived.map(\.id), [order.id], "finished as far as the engine knows, so archived")
        XCTAssertEqual(archived.first?.status, .completed)
        let kept = await world.store.unfinishedTransactions()
        let transactionID = try XCTUnwrap(kept.first?.id, "the store kept the transaction unfinished")
        await first.shutdown()

        // The next launch hears the transaction again.
        let relaunched = try await world.engine()
        let left = await world.store.unfinishedTransactions()
        XCTAssertEqual(left, [], "the launch's replay of a finished order's transaction is finished again")
        let holder = await world.orders.order(transactionID: transactionID)
        XCTAssertEqual(holder, archived.first, "the transaction stays with its order, as it was archived")
        let asked = await world.server.requestCount(transactionID: transactionID)
        XCTAssertEqual(asked, 1, "the server is not asked to credit it again")
        let all = await world.orders.allOrders()
        XCTAssertEqual(all.count, 1, "no second order for the replayed transaction")
        let credits = await world.server.creditCount(transactionID: transactionID)
        XCTAssertEqual(credits, 1)
        let balance = try await relaunched.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 1])
        await relaunched.shutdown()
    }

    /// The same for a renewal without an order token: its replay names the
    /// subscription's first transaction as its original, but it is found by
    /// its own id, as the renewal order it already has, not taken for a new renewal.
    func testARenewalTheStoreStillReportsAfterItsOrderWasArchivedIsNotDeliveredAgain() async throws {
        let world = World()
        let forgets = Locked(false)
        let first = try await world.engine(world.configuration(queue: forgetfulStore(world, forgets: forgets)))
        // The store loses the purchase's order token, so its renewals carry none either.
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true))
        let result = try await first.purchase(productID: Catalog.monthly, user: "alice")
        guard case .success(let purchase) = result else { return XCTFail("\(result)") }
        forgets.withLock { $0 = true }
        await world.advance(by: month, first)
        let kept = await world.store.unfinishedTransactions()
        XCTAssertEqual(kept.count, 1, "the store kept the renewal unfinished")
        let renewal = try XCTUnwrap(kept.first)
        XCTAssertNotEqual(renewal.id, renewal.originalID, "a renewal")
        XCTAssertNil(renewal.orderToken, "found by its transaction id alone")
        let placed = await world.orders.order(transactionID: renewal.id)
        let renewalOrder = try XCTUnwrap(placed)
        XCTAssertNotEqual(renewalOrder.id, purchase.id)
        XCTAssertEqual(renewalOrder.status, .completed)
        let archived = await world.orders.archivedOrders()
        XCTAssertTrue(archived.contains { $0.id == renewalOrder.id }, "the renewal's order is over and archived")
        await first.shutdown()

        let relaunched = try await world.engine()
        let left = await world.store.unfinishedTransactions()
        XCTAssertEqual(left, [], "finished again")
        let holder = await world.orders.order(transactionID: renewal.id)
        XCTAssertEqual(holder, renewalOrder, "the renewal stays with its own order, as it was archived")
        let alice = await world.orders.orders(forUser: "alice")
        XCTAssertEqual(alice.map(\.id).sorted(), [purchase.id, renewalOrder.id].sorted(), "no second order for the renewal")
        let credits = await world.server.creditCount(transactionID: renewal.id)
        XCTAssertEqual(credits, 1)
        let asked = await world.server.requestCount(transactionID: renewal.id)
        XCTAssertEqual(asked, 1, "the server is not asked to credit it again")
        await relaunched.shutdown()
    }
}
