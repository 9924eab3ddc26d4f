import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// The order store fails (a full disk) in the middle of a purchase.
final class PurchaseEngineStorageFailureTests: XCTestCase {
    func testAFailedSaveOfThePaidOrderAnswersPendingAndTheNextLaunchDelivers() async throws {
        let world = World()
        let failing = FailingSaves(base: world.orders, failingStatuses: [.purchased])
        let engine = try await world.engine(world.configuration(store: failing))
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .pending(let order, .deliveryRetrying) = result else { return XCTFail("\(result)") }
        XCTAssertNotNil(order.transactionID, "the answer says the user paid")
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished.count, 1, "the store keeps the paid transaction")

        // The disk has room again; the next launch recovers the payment.
        let relaunched = try await world.engine()
        let balance = try await relaunched.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Catalog.coins: 1])
        let credits = await world.creditCounts()
        XCTAssertEqual(Array(credits.values), [1])
    }

    /// The delivery is saved, then the `completed` record fails: the user was
    /// credited, so the call says so (it once answered "delivery retrying").
    func testAFailedSaveAfterTheDeliveryStillAnswersSuccess() async throws {
        let world = World()
        let failing = FailingSaves(base: world.orders, failingStatuses: [.completed])
        let engine = try await world.engine(world.configuration(store: failing))
        let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
        guard case .success(let order) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(order.status, .delivered)
        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.status, .delivered, "the delivery is what was saved")
        let credits = await world.creditCounts()
        XCTAssertEqual(Array(credits.values), [1])
    }

    func testAFailedSaveBeforePaymentChargesNothing() async throws {
        let world = World()
        let failing = FailingSaves(base: world.orders, failingStatuses: [.purchasing])
        let engine = try await world.engine(world.configuration(store: failing))
        do {
            _ = try await engine.purchase(productID: Catalog.coins, user: "alice")
            XCTFail("expected a persistence error")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .persistenceWriteFailed)
        }
        let transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty)
    }
}

/// An order store that refuses to save orders in some statuses (a full
/// disk), the first `times` such saves or every one, and says when it did.
final class FailingSaves: OrderStore {
    struct DiskFull: Error {}
    let base: InMemoryOrderStore
    let failingStatuses: Set<OrderStatus>
    private let remaining: Locked<Int>
    private let (failures, failure) = AsyncStream<Void>.makeStream()

    init(base: InMemoryOrderStore, failingStatuses: Set<OrderStatus>, times: Int = .max) {
        self.base = base
        self.failingStatuses = failingStatuses
        self.remaining = Locked(times)
    }

    /// Returns once a save has failed.
    func waitForFailure() async {
        var iterator = failures.makeAsyncIterator()
        _ = await iterator.next()
    }

    func save(_ order: Order) async throws {
        if failingStatuses.contains(order.status) {
            let fails = remaining.withLock { left -> Bool in
                guard left > 0 else { return false }
                left -= 1
                return true
            }
            if fails {
                failure.yield()
                throw DiskFull()
            }
        }
        await base.save(order)
    }

    func loadOpenOrders() async throws -> OrderLoadReport { await base.loadOpenOrders() }
    func openOrders(forUser userID: String) async throws -> [Order] { await base.openOrders(forUser: userID) }
    func orders(forUser userID: String) async throws -> [Order] { await base.orders(forUser: userID) }
    func order(id: String) async throws -> Order? { await base.order(id: id) }
    func order(transactionID: String) async throws -> Order? { await base.order(transactionID: transactionID) }
    func order(token: String) async throws -> Order? { await base.order(token: token) }
    func archive(orderID: String) async throws { try await base.archive(orderID: orderID) }
    func remove(orderID: String) async throws { await base.remove(orderID: orderID) }
}
