#if !canImport(StoreKit)
import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
@testable import PurchaseKitStoreKit
import StoreKitInterface
import XCTest

/// What a killed process leaves in StoreKit is recovered at the next launch,
/// and the adapter keeps every transaction until the engine finishes it.
final class AppStoreRecoveryTests: XCTestCase {
    override func tearDown() {
        ScriptedAppStore.uninstall()
        super.tearDown()
    }

    func testAPaymentLeftUndeliveredIsDeliveredAtTheNextLaunchThenFinished() async throws {
        let world = AppStoreWorld()
        await world.server.setDown(true)
        var orderID = ""
        var transactionID: UInt64 = 0
        do {
            let (engine, _) = try await world.launch()
            guard case .pending(let order, .deliveryRetrying) = try await engine.purchase(productID: Shop.coins, user: "alice") else {
                return XCTFail("the purchase was not left owing its delivery")
            }
            orderID = order.id
            transactionID = try world.transactionID(of: order)
        }
        XCTAssertFalse(world.store.isFinished(transactionID), "paid but undelivered: StoreKit keeps it")
        await world.server.setDown(false)

        let (engine, _) = try await world.launch()

        let order = try await world.order(orderID)
        XCTAssertEqual(order.status, .completed)
        XCTAssertTrue(world.store.isFinished(transactionID))
        let credits = await world.server.credits
        XCTAssertEqual(credits, [String(transactionID): "alice"])
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Shop.coins: 1])
    }

    /// A payment left unfinished that StoreKit cannot verify for now
    /// (`revokedCertificate`: "Trying again later may retrieve valid signed
    /// data from the App Store") is neither credited nor rejected at launch:
    /// it stays in StoreKit until a launch finds it verified.
    func testAPaymentStoreKitCannotVerifyAtLaunchWaitsInStoreKitUntilALaunchFindsItVerified() async throws {
        let world = AppStoreWorld()
        world.store.scriptNextPurchases(.sheetStaysOpen)
        var orderID = ""
        do {
            let (engine, _) = try await world.launch(storeTimeout: 60)
            let call = Task { try await engine.purchase(productID: Shop.coins, user: "alice") }
            await world.store.waitForPurchaseCalls(1)
            world.advance(by: 61)
            guard case .pending(let order, .storeTimeout) = try await call.value else {
                return XCTFail("the call did not return at the store timeout")
            }
            orderID = order.id
            await engine.waitUntilIdle()
        }
        // The user pays on the sheet the killed process opened.
        await world.store.closeSheet(with: .payUnverified(.revokedCertificate))
        let charged = try XCTUnwrap(world.store.transactions.first)

        do {
            let (engine, _) = try await world.launch()
            let waiting = try await world.order(orderID)
            XCTAssertEqual(waiting.status, .purchasing, "neither credited nor rejected")
            XCTAssertFalse(world.store.isFinished(charged.id), "paid and not yet verifiable: StoreKit must keep it")
            let balance = try await engine.consumableBalance(user: "alice")
            XCTAssertTrue(balance.isEmpty)
        }
        let requests = await world.server.requests
        XCTAssertTrue(requests.isEmpty, "nothing unverified reaches the server")

        world.store.setVerificationFailure(of: charged.id, to: nil)
        let (engine, _) = try await world.launch()

        let order = try await world.order(orderID)
        XCTAssertEqual(order.status, .completed)
        XCTAssertTrue(world.store.isFinished(charged.id))
        let credits = await world.server.credits
        XCTAssertEqual(credits, [String(charged.id): "alice"])
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Shop.coins: 1])
    }

    func testAPaymentChargedAfterTheAppWasKilledIsMatchedToItsOrderAtTheNextLaunch() async throws {
        let world = AppStoreWorld()
        world.store.scriptNextPurchases(.sheetStaysOpen)
        weak var killedEngine: PurchaseEngine?
        weak var killedQueue: AppStorePaymentQueue?
        var orderID = ""
        do {
            let (engine, queue) = try await world.launch(storeTimeout: 60)
            killedEngine = engine
            killedQueue = queue
            let call = Task { try await engine.purchase(productID: Shop.premium, user: "alice") }
            await world.store.waitForPurchaseCalls(1)
            world.advance(by: 61)
            guard case .pending(let order, .storeTimeout) = try await call.value else {
                return XCTFail("the call did not return at the store timeout")
            }
            orderID = order.id
            // The work that answered the call (the store timeout's) still
            // holds the engine for a moment after the answer; let it end, so
            // that what is checked below is that nothing else keeps it.
            await engine.waitUntilIdle()
        }
        // The engine's last work says it is done from inside its task, which
        // lets go of the engine a moment later, on another thread: on a busy
        // machine that moment comes after waitUntilIdle() returned.
        var turns = 0
        while killedEngine != nil || killedQueue != nil, turns < 100_000 {
            await Task.yield()
            turns += 1
        }
        XCTAssertNil(killedEngine, "the first process is gone")
        XCTAssertNil(killedQueue, "the first process is gone")
        // The user pays on the sheet the killed process opened; nobody hears the answer.
        await world.store.closeSheet(with: .pay)
        let charged = try XCTUnwrap(world.store.transactions.first)
        let waiting = try await world.order(orderID)
        XCTAssertEqual(waiting.status, .purchasing)

        _ = try await world.launch()

        let order = try await world.order(orderID)
        XCTAssertEqual(order.status, .completed, "matched to its order by the token it carried")
        XCTAssertEqual(order.transaction?.id, String(charged.id))
        XCTAssertTrue(world.store.isFinished(charged.id))
        let credits = await world.server.credits
        XCTAssertEqual(credits, [String(charged.id): "alice"])
    }

    func testAttachDeliversTheUnfinishedTransactionsBeforeReturning() async throws {
        let world = AppStoreWorld()
        let token = UUID()
        let first = try XCTUnwrap(world.store.addUnfinishedTransaction(productID: Shop.premium, appAccountToken: token))
        world.advance(by: 60)
        let second = try XCTUnwrap(world.store.addUnfinishedTransaction(productID: Shop.coins, appAccountToken: nil, quantity: 2))
        let queue = AppStorePaymentQueue(configuration: .init(clock: world.clock))
        let observer = RecordingObserver()

        await queue.attach(observer)

        XCTAssertEqual(observer.batches.count, 1, "one batch, delivered before attach returned")
        XCTAssertEqual(observer.updates.map(\.transaction?.id), [String(first), String(second)], "oldest first")
        XCTAssertEqual(observer.updates.map(\.kind), [.purchased, .purchased])
        XCTAssertEqual(observer.updates.map(\.orderToken), [token.uuidString.lowercased(), nil],
                       "a transaction without an appAccountToken arrives without a token")
        XCTAssertEqual(observer.updates.last?.transaction?.quantity, 2)
    }

    func testTheUnfinishedTransactionsThatUpdatesReplaysAreNotHandedOverTwice() async throws {
        let world = AppStoreWorld()
        world.store.addUnfinishedTransaction(productID: Shop.premium, appAccountToken: UUID())
        world.store.addUnfinishedTransaction(productID: Shop.coins, appAccountToken: UUID())
        let queue = AppStorePaymentQueue(configuration: .init(clock: world.clock))
        let observer = RecordingObserver()
        await queue.attach(observer)
        await world.store.waitForListeners(updates: 1)

        // StoreKit's `updates` starts with the two unfinished transactions; this
        // one comes after them, so once it is processed they were too.
        let outsideID = await world.store.purchaseOutsideTheApp(productID: Shop.season)
        let outside = try XCTUnwrap(outsideID)

        XCTAssertEqual(observer.updates.compactMap(\.transaction?.id).count, 3)
        XCTAssertEqual(observer.updates.last?.transaction?.id, String(outside))
        XCTAssertNil(observer.updates.last?.orderToken)
    }

    func testFinishingFinishesOnceAndReachesTransactionsHandedOverByAnEarlierProcess() async throws {
        let world = AppStoreWorld()
        let held = try XCTUnwrap(world.store.addUnfinishedTransaction(productID: Shop.coins, appAccountToken: UUID()))
        let queue = AppStorePaymentQueue(configuration: .init(clock: world.clock))
        await queue.attach(RecordingObserver())
        // Added after attach and never handed over by this adapter.
        let notHeld = try XCTUnwrap(world.store.addUnfinishedTransaction(productID: Shop.premium, appAccountToken: UUID()))

        try await queue.finish(transactionID: String(held))
        try await queue.finish(transactionID: String(held))
        try await queue.finish(transactionID: String(notHeld))
        try await queue.finish(transactionID: "payment-1")

        XCTAssertTrue(world.store.isFinished(held))
        XCTAssertEqual(world.store.finishCalls(held), 1, "finishing twice does nothing")
        XCTAssertTrue(world.store.isFinished(notHeld))
        XCTAssertEqual(world.store.finishCalls(notHeld), 1)
    }

    func testAPurchaseMadeOutsideTheAppGoesToTheCurrentUserWithoutAToken() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch(user: "bob")

        let outsideID = await world.store.purchaseOutsideTheApp(productID: Shop.premium)
        let id = try XCTUnwrap(outsideID)
        await engine.waitUntilIdle()

        let orders = await world.orders(of: "bob")
        let order = try XCTUnwrap(orders.first)
        XCTAssertEqual(order.source, .otherDevice)
        XCTAssertNil(order.token)
        XCTAssertNil(order.transaction?.orderToken)
        XCTAssertEqual(order.status, .completed)
        XCTAssertTrue(world.store.isFinished(id))
    }
}
#endif
