import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// A restore says what it restored and delivered, what is still owed, what
/// failed, and whether the user cancelled — each path through the simulated store.
final class RestoreResultTests: XCTestCase {
    /// Alice bought Pro and the monthly plan on her first device.
    private func worldWithPurchases() async throws -> World {
        let world = World()
        let firstDevice = try await world.engine()
        _ = try await firstDevice.purchase(productID: Catalog.pro, user: "alice")
        _ = try await firstDevice.purchase(productID: Catalog.monthly, user: "alice")
        return world
    }

    func testARestoreOnANewDeviceReportsEverythingDelivered() async throws {
        let world = try await worldWithPurchases()
        let newDevice = try await world.engine(world.configuration(store: InMemoryOrderStore()))
        let result = try await newDevice.restorePurchases(user: "alice")
        XCTAssertEqual(result.delivered.map(\.productID).sorted(), [Catalog.monthly, Catalog.pro])
        XCTAssertEqual(result.restoredProductIDs, [Catalog.monthly, Catalog.pro])
        XCTAssertTrue(result.owed.isEmpty)
        XCTAssertTrue(result.failures.isEmpty)
        XCTAssertFalse(result.userCancelled)
        XCTAssertTrue(result.isComplete)
    }

    func testADeliveryStillRetryingIsReportedOwedNotRestored() async throws {
        let world = try await worldWithPurchases()
        let newDevice = try await world.engine(world.configuration(store: InMemoryOrderStore()))
        // The app's server is down for the first delivery (Pro, the older purchase).
        await world.server.scriptNextReplies([.serverError(statusCode: 503)])
        let result = try await newDevice.restorePurchases(user: "alice")
        XCTAssertEqual(result.owed.map(\.productID), [Catalog.pro])
        XCTAssertEqual(result.owed.map(\.status), [.purchased], "paid and saved, delivery retrying")
        XCTAssertEqual(result.restoredProductIDs, [Catalog.monthly], "only what was delivered counts as restored")
        XCTAssertEqual(result.orders.count, 2)
        XCTAssertFalse(result.isComplete)
        var entitlements = try await newDevice.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.monthly])

        // The retry delivers it; nothing is credited twice.
        let retries = await newDevice.scheduledRetries
        let retryAt = try XCTUnwrap(retries[result.owed[0].id])
        world.clock.advance(to: retryAt)
        await newDevice.waitUntilIdle()
        entitlements = try await newDevice.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.monthly, Catalog.pro])
        let credits = await world.creditCounts()
        XCTAssertTrue(credits.values.allSatisfy { $0 == 1 })
    }

    func testARestoredOrderWhoseSaveFailedIsReportedAndTheNextRestoreDeliversIt() async throws {
        let world = try await worldWithPurchases()
        // A full disk on the new device: the first restored order cannot be saved.
        let failing = failingSaves(InMemoryOrderStore(), statuses: [.purchased], times: 1)
        let newDevice = try await world.engine(world.configuration(store: failing))
        let result = try await newDevice.restorePurchases(user: "alice")
        XCTAssertEqual(result.failures.map(\.productID), [Catalog.pro])
        XCTAssertEqual(result.failures.map(\.error.code), [.persistenceWriteFailed])
        let proTransaction = await world.store.allTransactions().first
        XCTAssertEqual(result.failures.first?.transactionID, proTransaction?.id)
        XCTAssertEqual(result.restoredProductIDs, [Catalog.monthly])
        XCTAssertFalse(result.isComplete)

        // The disk has room again: restoring again brings it back.
        let again = try await newDevice.restorePurchases(user: "alice")
        XCTAssertEqual(again.restoredProductIDs, [Catalog.monthly, Catalog.pro])
        XCTAssertTrue(again.failures.isEmpty)
        let credits = await world.creditCounts()
        XCTAssertTrue(credits.values.allSatisfy { $0 == 1 })
    }

    func testAPurchaseTheServerRefusesIsAFailureNotARestore() async throws {
        let world = try await worldWithPurchases()
        // Bob, on another device with the same store account: the server credited Alice.
        let newDevice = try await world.engine(world.configuration(store: InMemoryOrderStore()))
        let result = try await newDevice.restorePurchases(user: "bob")
        XCTAssertEqual(result.failures.map(\.productID), [Catalog.pro, Catalog.monthly])
        XCTAssertEqual(Set(result.failures.map(\.error.code)), [.verificationRejected])
        XCTAssertTrue(result.failures.allSatisfy { $0.orderID != nil })
        XCTAssertTrue(result.restoredProductIDs.isEmpty)
        let entitlements = try await newDevice.entitlements(user: "bob")
        XCTAssertTrue(entitlements.isEmpty)
    }

    func testAUserCancelIsAResultNotAFailure() async throws {
        let world = try await worldWithPurchases()
        let newDevice = try await world.engine(world.configuration(store: InMemoryOrderStore()))
        let events = await EventLog(newDevice)
        await world.store.setRestoreBehavior(.userCancels)
        let result = try await newDevice.restorePurchases(user: "alice")
        XCTAssertTrue(result.userCancelled)
        XCTAssertTrue(result.orders.isEmpty)
        XCTAssertTrue(result.failures.isEmpty)
        XCTAssertFalse(result.isComplete)
        await events.waitForEvent { if case .restoreFinished = $0 { return true }; return false }
        let all = await events.events
        XCTAssertEqual(all, [.restoreFinished(result)])
        let entitlements = try await newDevice.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty)
        await events.stop()
    }

    func testAStoreThatCannotRestoreThrowsRestoreFailed() async throws {
        let world = try await worldWithPurchases()
        let newDevice = try await world.engine(world.configuration(store: InMemoryOrderStore()))
        await world.store.setRestoreBehavior(.fails)
        do {
            _ = try await newDevice.restorePurchases(user: "alice")
            XCTFail("expected restoreFailed")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .restoreFailed)
            XCTAssertEqual((error.underlying as? PurchaseKitError)?.code, .storeUnavailable)
        }
        // The store is back.
        await world.store.setRestoreBehavior(.succeeds)
        let result = try await newDevice.restorePurchases(user: "alice")
        XCTAssertEqual(result.restoredProductIDs, [Catalog.monthly, Catalog.pro])
    }

    /// A store that still lists a refunded purchase among those it restores:
    /// the refund stands, and the restore brings back only what is still paid.
    func testARefundedPurchaseTheStoreStillListsIsNotRestored() async throws {
        let world = try await worldWithPurchases()
        let transactions = await world.store.allTransactions()
        let pro = try XCTUnwrap(transactions.first { $0.productID == Catalog.pro })
        try await world.store.refund(transactionID: pro.id)
        let refunded = await world.store.transaction(id: pro.id)
        XCTAssertEqual(refunded?.isRevoked, true)
        let store = world.store
        let listsRefunds = InterceptingPaymentQueue(wrapping: store) { call in
            guard call.name == .restoreCompletedTransactions else { return .proceed }
            return .answer(.transactions(await store.allTransactions()))
        }
        let newDevice = try await world.engine(world.configuration(store: InMemoryOrderStore(), queue: listsRefunds))
        let result = try await newDevice.restorePurchases(user: "alice")
        XCTAssertEqual(result.restoredProductIDs, [Catalog.monthly])
        XCTAssertEqual(result.failures.map(\.transactionID), [], "left out, not claimed and refused")
        let entitlements = try await newDevice.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Catalog.monthly])
        let orders = await newDevice.openOrders()
        XCTAssertFalse(orders.contains { $0.transactionID == pro.id }, "no order holds the refunded purchase")
    }
}
