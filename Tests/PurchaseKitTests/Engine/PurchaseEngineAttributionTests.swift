import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Scripted interleavings on one store account shared by several users: a
/// transaction is credited to the user whose payment made it, and to nobody
/// else, whichever store update or restore reaches the engine first.
final class PurchaseEngineAttributionTests: XCTestCase {
    private struct Setup {
        let world = World()
        let auditor: AnswerAuditor
        let engine: PurchaseEngine

        init() async throws {
            auditor = AnswerAuditor(base: world.store, orders: world.orders, clock: world.clock, storeTimeout: 600)
            engine = try await world.engine(world.configuration(queue: auditor.queue, duplicates: .wait, storeTimeout: 600))
        }

        /// Starts alice's purchase of `productID` with the store holding its
        /// updates back, and returns once the store has charged her.
        func aliceBuysWithALateUpdate(_ productID: String) async -> Task<PurchaseResult, any Error> {
            await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(holdsUpdates: true))
            let engine = self.engine
            let alice = Task { try await engine.purchase(productID: productID, user: "alice") }
            await auditor.waitUntilAnswered(1)
            return alice
        }
    }

    /// The interleaving: alice's payment is charged (transaction T, alice's
    /// token) but its update is late; bob buys the same non-consumable and the
    /// store answers his payment at once with T, reported against bob's token.
    /// That answer reached the reconciler first; T's own token named alice's
    /// waiting order, so T was matched to it, and bob's payment — answered,
    /// but never told so — waited until the store timeout, its order left
    /// `purchasing` for good and, with the `.wait` policy, his next purchases
    /// of the product queued behind it.
    func testAnAlreadyOwnedAnswerThatOvertakesTheOwnersUpdateFailsOnlyTheNewPayment() async throws {
        let setup = try await Setup()
        let world = setup.world
        let alice = await setup.aliceBuysWithALateUpdate(Catalog.pro)

        for attempt in 1...2 {
            do {
                let result = try await setup.engine.purchase(productID: Catalog.pro, user: "bob")
                XCTFail("bob's purchase \(attempt) must end with alreadyOwned, not \(result)")
            } catch let error as PurchaseKitError {
                XCTAssertEqual(error.code, .paymentFailed)
                XCTAssertEqual(error.storeReason, .alreadyOwned)
            }
        }
        let creditsBeforeRelease = await world.server.allCredits
        XCTAssertEqual(creditsBeforeRelease, [], "an answer to bob's payment credits nobody")

        await world.store.releaseHeldUpdates()
        let aliceResult = try await alice.value
        await setup.engine.waitUntilIdle()
        guard case .success(let aliceOrder) = aliceResult else { return XCTFail("alice: \(aliceResult)") }
        let transactionID = try XCTUnwrap(aliceOrder.transactionID)
        let buyer = await world.store.buyer(ofTransactionID: transactionID)
        XCTAssertEqual(buyer, "alice")
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map { "\($0.transactionID)>\($0.userID)" }, ["\(transactionID)>alice"])
        let bobsCredits = await world.server.credits(forUser: "bob")
        XCTAssertEqual(bobsCredits, [])
        let bobsOrders = await world.orders.orders(forUser: "bob")
        XCTAssertEqual(bobsOrders.map(\.status), [.failed, .failed])
        XCTAssertTrue(bobsOrders.allSatisfy { $0.transaction == nil && $0.storeFailureReason == .alreadyOwned })
        let open = await setup.engine.openOrders()
        XCTAssertEqual(open.map(\.id), [])
        let stranded = setup.auditor.stranded
        XCTAssertEqual(stranded, [])
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished.map(\.id), [])
    }

    /// The same race for a running subscription: the store answers bob with
    /// alice's subscription transaction before alice's own update arrives.
    func testAnAlreadyOwnedSubscriptionAnswerThatOvertakesTheOwnersUpdateCreditsOnlyTheOwner() async throws {
        let setup = try await Setup()
        let world = setup.world
        let alice = await setup.aliceBuysWithALateUpdate(Catalog.monthly)
        do {
            _ = try await setup.engine.purchase(productID: Catalog.monthly, user: "bob")
            XCTFail("bob's purchase must end with alreadyOwned")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.storeReason, .alreadyOwned)
        }
        await world.store.releaseHeldUpdates()
        let aliceResult = try await alice.value
        await setup.engine.waitUntilIdle()
        XCTAssertEqual(aliceResult.order.status, .completed)
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["alice"])
        let status = try await setup.engine.subscriptionStatus(user: "bob")
        XCTAssertEqual(status, [:])
    }

    /// Restore on a shared account while alice's payment is still on its way:
    /// the transaction carries alice's order token, so it pays alice's order
    /// and is credited to her, never to bob who restored.
    func testRestoreByAnotherUserCreditsALatePurchaseToTheOrderThatPaidForIt() async throws {
        let setup = try await Setup()
        let world = setup.world
        let alice = await setup.aliceBuysWithALateUpdate(Catalog.pro)

        let restored = try await setup.engine.restorePurchases(user: "bob")
        await setup.engine.waitUntilIdle()
        XCTAssertEqual(restored.restoredProductIDs, [])
        XCTAssertEqual(restored.orders, [])
        // Alice's order took the transaction from the restore, before its own update.
        let alicesOrders = await world.orders.orders(forUser: "alice")
        XCTAssertEqual(alicesOrders.map(\.status), [.completed])
        var credits = await world.server.allCredits
        XCTAssertEqual(credits.map { "\($0.userID)>\($0.orderID)" }, alicesOrders.map { "alice>\($0.id)" })

        // The late update finally arrives: a duplicate, nothing changes.
        await world.store.releaseHeldUpdates()
        let aliceResult = try await alice.value
        await setup.engine.waitUntilIdle()
        guard case .success(let aliceOrder) = aliceResult else { return XCTFail("alice: \(aliceResult)") }
        let transactionID = try XCTUnwrap(aliceOrder.transactionID)
        let buyer = await world.store.buyer(ofTransactionID: transactionID)
        XCTAssertEqual(buyer, "alice")
        credits = await world.server.allCredits
        XCTAssertEqual(credits.map { "\($0.transactionID)>\($0.userID)>\($0.orderID)" },
                       ["\(transactionID)>alice>\(aliceOrder.id)"])
        let bobsOrders = await world.orders.orders(forUser: "bob")
        XCTAssertEqual(bobsOrders, [])
        let bobsEntitlements = try await setup.engine.entitlements(user: "bob")
        XCTAssertEqual(bobsEntitlements, [])
        let alicesEntitlements = try await setup.engine.entitlements(user: "alice")
        XCTAssertEqual(alicesEntitlements.map(\.productID), [Catalog.pro])
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertEqual(unfinished.map(\.id), [])
    }

    /// A renewal carries the token of the subscription's first order. Restored
    /// by another user before its own update arrives, it stays the subscriber's.
    func testRestoreByAnotherUserLeavesALateRenewalWithTheSubscriber() async throws {
        let setup = try await Setup()
        let world = setup.world
        let first = try await setup.engine.purchase(productID: Catalog.monthly, user: "alice").order
        let firstID = try XCTUnwrap(first.transactionID)
        await world.store.setHoldsUpdates(true)
        world.clock.advance(by: 40 * 86_400) // the subscription renews while its updates are held back

        let restored = try await setup.engine.restorePurchases(user: "bob")
        await setup.engine.waitUntilIdle()
        XCTAssertEqual(restored.orders, [])
        let renewals = await world.store.allTransactions().filter { $0.originalID == firstID && $0.id != firstID }
        XCTAssertFalse(renewals.isEmpty, "the store renewed the subscription")
        for renewal in renewals {
            let buyer = await world.store.buyer(ofTransactionID: renewal.id)
            let credited = await world.server.credits(forTransactionID: renewal.id).map(\.userID)
            XCTAssertEqual(buyer, "alice")
            XCTAssertTrue(credited.allSatisfy { $0 == "alice" }, "renewal \(renewal.id) credited to \(credited)")
        }
        let bobsCredits = await world.server.credits(forUser: "bob")
        XCTAssertEqual(bobsCredits, [])

        await world.store.releaseHeldUpdates()
        await setup.engine.waitUntilIdle()
        for renewal in renewals {
            let credited = await world.server.credits(forTransactionID: renewal.id).map(\.userID)
            XCTAssertEqual(credited, ["alice"], "renewal \(renewal.id)")
        }
        let bobsOrders = await world.orders.orders(forUser: "bob")
        XCTAssertEqual(bobsOrders, [])
    }

    /// Alice's subscription is charged, but the store lost her order token and
    /// holds every update back; a month on, it has renewed and her order has
    /// expired. Bob's restore then finds the renewal, of a purchase no order
    /// here holds, while alice's order of the product still waits for a
    /// payment: it may be hers (it is), so it is flagged for the app, never
    /// bob's. Once the late updates arrive, the first purchase pays alice's
    /// order, and support gives the renewal to the user the store says paid.
    func testRestoreByAnotherUserFlagsATokenlessRenewalWhileAnotherUsersOrderWaitsForTheProduct() async throws {
        let setup = try await Setup()
        let world = setup.world
        let engine = setup.engine
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true))
        await world.store.setHoldsUpdates(true)
        let alice = Task { try await engine.purchase(productID: Catalog.monthly, user: "alice") }
        await setup.auditor.waitUntilAnswered(1)
        world.clock.advance(by: 40 * 86_400) // the subscription renews while its updates are held back
        await engine.waitUntilIdle()
        _ = try await alice.value

        let restored = try await engine.restorePurchases(user: "bob")
        await engine.waitUntilIdle()
        XCTAssertEqual(restored.orders, [])
        let bobsCredits = await world.server.credits(forUser: "bob")
        XCTAssertEqual(bobsCredits, [])
        let flagged = await engine.openOrders().filter { $0.userID.isEmpty }
        XCTAssertEqual(flagged.map(\.status), [.needsAttention])

        await world.store.releaseHeldUpdates()
        await engine.waitUntilIdle()
        for order in await engine.openOrders() where order.userID.isEmpty {
            let transactionID = try XCTUnwrap(order.transactionID)
            let buyer = await world.store.buyer(ofTransactionID: transactionID)
            _ = try await engine.assign(orderID: order.id, toUser: try XCTUnwrap(buyer))
        }
        await engine.waitUntilIdle()
        let transactions = await world.store.allTransactions()
        XCTAssertGreaterThan(transactions.count, 1, "the store renewed the subscription")
        for transaction in transactions {
            let credited = await world.server.credits(forTransactionID: transaction.id).map(\.userID)
            XCTAssertEqual(credited, ["alice"], "transaction \(transaction.id)")
        }
        let bobsOrders = await world.orders.orders(forUser: "bob")
        XCTAssertEqual(bobsOrders, [])
    }
}
