import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Purchases the store starts (a promoted in-app purchase tapped on the App
/// Store): the intent comes first, the app's answer decides whether the
/// purchase is made; a store-initiated payment already made is always credited.
final class PromotedPurchaseTests: XCTestCase {
    /// A handler that answers `decision` and counts the intents it saw.
    private func handler(_ decision: PromotedPurchaseDecision, seen: Locked<[PromotedPurchaseIntent]>) -> PromotedPurchaseHandler {
        { intent in
            seen.withLock { $0.append(intent) }
            return decision
        }
    }

    func testAnAcceptedIntentIsBoughtAsAnOrderOfTheUser() async throws {
        let world = World()
        let engine = try await world.engine()
        let seen = Locked<[PromotedPurchaseIntent]>([])
        await engine.setPromotedPurchaseHandler(handler(.accept(user: "alice"), seen: seen))
        let intent = try await world.store.promote(productID: Catalog.pro)
        await engine.waitUntilIdle()
        XCTAssertEqual(seen.withLock { $0 }, [intent])
        let history = try await engine.history(user: "alice")
        XCTAssertEqual(history.map(\.source), [.storeInitiated])
        XCTAssertEqual(history.map(\.status), [.completed])
        XCTAssertNotNil(history.first?.token, "bought as an ordinary payment carrying its order's token")
        let transactions = await world.store.allTransactions()
        XCTAssertEqual(transactions.map(\.orderToken), [history.first?.token])
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.pro])
        let credits = await world.creditCounts()
        XCTAssertEqual(Array(credits.values), [1])
    }

    func testADeclinedIntentChargesNothing() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setCurrentUser("alice")
        let seen = Locked<[PromotedPurchaseIntent]>([])
        await engine.setPromotedPurchaseHandler(handler(.decline, seen: seen))
        try await world.store.promote(productID: Catalog.pro)
        await engine.waitUntilIdle()
        XCTAssertEqual(seen.withLock { $0.count }, 1)
        let transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty)
        let orders = await engine.openOrders()
        XCTAssertTrue(orders.isEmpty)
        let deferred = await engine.deferredPromotedPurchases
        XCTAssertTrue(deferred.isEmpty)
    }

    func testADeferredIntentWaitsUntilTheAppResumesIt() async throws {
        let world = World()
        let engine = try await world.engine()
        let seen = Locked<[PromotedPurchaseIntent]>([])
        await engine.setPromotedPurchaseHandler(handler(.defer, seen: seen))
        let intent = try await world.store.promote(productID: Catalog.monthly)
        await engine.waitUntilIdle()
        var deferred = await engine.deferredPromotedPurchases
        XCTAssertEqual(deferred, [intent])
        var transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty, "nothing is charged while deferred")

        // Onboarding is done: the app buys it for the user who signed in.
        let result = try await engine.resumePromotedPurchase(id: intent.id, user: "bob")
        guard case .success(let order) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(order.source, .storeInitiated)
        XCTAssertEqual(order.userID, "bob")
        deferred = await engine.deferredPromotedPurchases
        XCTAssertTrue(deferred.isEmpty)
        transactions = await world.store.allTransactions()
        XCTAssertEqual(transactions.count, 1)
        do {
            _ = try await engine.resumePromotedPurchase(id: intent.id, user: "bob")
            XCTFail("a resumed intent is gone")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .orderNotFound)
        }
        transactions = await world.store.allTransactions()
        XCTAssertEqual(transactions.count, 1, "resuming twice buys once")
    }

    func testADeferredIntentCanBeDeclinedLater() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setPromotedPurchaseHandler { _ in .defer }
        let intent = try await world.store.promote(productID: Catalog.pro)
        await engine.waitUntilIdle()
        try await engine.declinePromotedPurchase(id: intent.id)
        let deferred = await engine.deferredPromotedPurchases
        XCTAssertTrue(deferred.isEmpty)
        do {
            try await engine.declinePromotedPurchase(id: intent.id)
            XCTFail("a declined intent is gone")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .orderNotFound)
        }
        let transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty)
    }

    func testAResumeThatCouldNotReachTheStoreKeepsTheIntent() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setPromotedPurchaseHandler { _ in .defer }
        let intent = try await world.store.promote(productID: Catalog.coins)
        await engine.waitUntilIdle()
        await world.store.setCanMakePayments(false)
        do {
            _ = try await engine.resumePromotedPurchase(id: intent.id, user: "alice")
            XCTFail("expected paymentsNotAllowed")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .paymentsNotAllowed)
        }
        let deferred = await engine.deferredPromotedPurchases
        XCTAssertEqual(deferred, [intent], "nothing was charged; the app may try again")
        await world.store.setCanMakePayments(true)
        let result = try await engine.resumePromotedPurchase(id: intent.id, user: "alice")
        XCTAssertEqual(result.order.status, .completed)
    }

    func testAnAcceptedIntentTheUserCancelsChargesNothing() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setPromotedPurchaseHandler { _ in .accept(user: "alice") }
        await world.store.scriptNextPurchase(.userCancel)
        try await world.store.promote(productID: Catalog.pro)
        await engine.waitUntilIdle()
        let history = try await engine.history(user: "alice")
        XCTAssertEqual(history.map(\.status), [.cancelled])
        let transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty)
    }

    func testWithoutAHandlerTheCurrentUserBuysAndNobodyLoggedInDefers() async throws {
        let world = World()
        let engine = try await world.engine()
        let first = try await world.store.promote(productID: Catalog.pro)
        await engine.waitUntilIdle()
        var deferred = await engine.deferredPromotedPurchases
        XCTAssertEqual(deferred, [first], "nobody to credit: deferred")
        await engine.setCurrentUser("carol")
        try await world.store.promote(productID: Catalog.season)
        await engine.waitUntilIdle()
        let history = try await engine.history(user: "carol")
        XCTAssertEqual(history.map(\.productID), [Catalog.season])
        XCTAssertEqual(history.map(\.status), [.completed])
        deferred = await engine.deferredPromotedPurchases
        XCTAssertEqual(deferred, [first])
    }

    func testAnIntentMadeBeforeLaunchArrivesWhenTheEngineAttaches() async throws {
        let world = World()
        let intent = try await world.store.promote(productID: Catalog.pro)
        let engine = try PurchaseEngine(configuration: world.configuration())
        let seen = Locked<[PromotedPurchaseIntent]>([])
        await engine.setPromotedPurchaseHandler(handler(.accept(user: "dave"), seen: seen))
        try await engine.start()
        await engine.waitUntilIdle()
        XCTAssertEqual(seen.withLock { $0 }, [intent])
        let entitlements = try await engine.entitlements(user: "dave")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.pro])
    }

    func testAPaidStoreInitiatedPurchaseIsCreditedWhateverTheHandlerSays() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setCurrentUser("alice")
        let seen = Locked<[PromotedPurchaseIntent]>([])
        await engine.setPromotedPurchaseHandler(handler(.decline, seen: seen))
        let transaction = try await world.store.buyPromotedOutsideApp(productID: Catalog.pro)
        await engine.waitUntilIdle()
        XCTAssertTrue(seen.withLock { $0.isEmpty }, "a paid purchase is not the handler's to decline")
        let history = try await engine.history(user: "alice")
        XCTAssertEqual(history.map(\.source), [.storeInitiated])
        XCTAssertEqual(history.map(\.transactionID), [transaction.id])
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.pro])
        let finished = await world.store.isFinished(transactionID: transaction.id)
        XCTAssertTrue(finished)
    }

    func testAPaidStoreInitiatedPurchaseWithNobodyLoggedInWaitsForAssignment() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setPromotedPurchaseHandler { _ in .decline }
        let transaction = try await world.store.buyPromotedOutsideApp(productID: Catalog.coins)
        await engine.waitUntilIdle()
        let open = await engine.openOrders()
        XCTAssertEqual(open.map(\.status), [.needsAttention])
        XCTAssertEqual(open.map(\.transactionID), [transaction.id])
        var finished = await world.store.isFinished(transactionID: transaction.id)
        XCTAssertFalse(finished, "kept by the store until it is credited")
        let order = try await engine.assign(orderID: try XCTUnwrap(open.first?.id), toUser: "erin")
        XCTAssertEqual(order.status, .completed)
        let balance = try await engine.consumableBalance(user: "erin")
        XCTAssertEqual(balance, [Catalog.coins: 1])
        finished = await world.store.isFinished(transactionID: transaction.id)
        XCTAssertTrue(finished)
    }

    func testAPromotionOfAProductNotForSaleIsRefusedByTheStore() async throws {
        let world = World()
        do {
            try await world.store.promote(productID: "com.example.unknown")
            XCTFail("expected invalidProductIdentifiers")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .invalidProductIdentifiers)
        }
    }

    func testAResumeCancelledBeforeItsOrderWasMadeKeepsTheIntent() async throws {
        let world = World()
        let engine = try await world.engine()
        await engine.setPromotedPurchaseHandler { _ in .defer }
        let intent = try await world.store.promote(productID: Catalog.pro)
        await engine.waitUntilIdle()
        // The screen that resumed it went away before anything was bought.
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await engine.resumePromotedPurchase(id: intent.id, user: "alice")
        }
        let error = await assertThrows(.cancelled) { _ = try await call.value }
        XCTAssertNil(error?.orderID)
        let transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty)
        let deferred = await engine.deferredPromotedPurchases
        XCTAssertEqual(deferred, [intent], "nothing was bought, so the intent may be resumed again")
        let result = try await engine.resumePromotedPurchase(id: intent.id, user: "alice")
        XCTAssertEqual(result.order.status, .completed)
    }
}

