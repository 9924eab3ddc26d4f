import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Restores by two users, one after the other, on a device whose store
/// account both use.
final class SharedAccountRestoreTests: XCTestCase {
    /// Alice bought Pro on her first device. On a second device Bob restores
    /// first: the server refuses him Pro, it is Alice's. Alice's restore on
    /// that device then found the transaction held by Bob's refused claim and
    /// skipped it: her result was empty, with no failure, and her paid Pro
    /// never came back on that device.
    func testTheOwnersRestoreAfterAnotherUsersRefusedRestoreBringsThePurchaseBack() async throws {
        try await checkTheOwnerGetsItBack(on: InMemoryOrderStore())
    }

    /// The same on the durable store, across a relaunch.
    func testTheOwnersRestoreAfterARefusedRestoreOnTheJournalStore() async throws {
        let directory = try makeTemporaryDirectory(self)
        try await checkTheOwnerGetsItBack(on: try JournalOrderStore(directory: directory), relaunch: {
            try JournalOrderStore(directory: directory)
        })
    }

    private func checkTheOwnerGetsItBack(on orders: any OrderStore,
                                         relaunch: (() throws -> any OrderStore)? = nil) async throws {
        let world = World()
        let firstDevice = try await world.engine()
        _ = try await firstDevice.purchase(productID: Catalog.pro, user: "alice")
        await firstDevice.shutdown()

        var shared = try await world.engine(world.configuration(store: orders))
        let bob = try await shared.restorePurchases(user: "bob")
        XCTAssertEqual(bob.failures.map(\.error.code), [.verificationRejected])
        if let relaunch {
            await shared.shutdown()
            shared = try await world.engine(world.configuration(store: try relaunch()))
        }

        let alice = try await shared.restorePurchases(user: "alice")
        await shared.waitUntilIdle()
        XCTAssertEqual(alice.restoredProductIDs, [Catalog.pro], "alice's own purchase: \(alice)")
        var aliceHas = try await shared.entitlements(user: "alice")
        XCTAssertEqual(aliceHas.map(\.productID), [Catalog.pro])

        // Bob's second try changes nothing: the purchase is Alice's now.
        let again = try await shared.restorePurchases(user: "bob")
        await shared.waitUntilIdle()
        XCTAssertEqual(again.orders, [])
        let bobHas = try await shared.entitlements(user: "bob")
        XCTAssertEqual(bobHas, [])
        aliceHas = try await shared.entitlements(user: "alice")
        XCTAssertEqual(aliceHas.map(\.productID), [Catalog.pro])
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["alice"], "credited once, to the buyer")
        await shared.shutdown()
    }

    /// Alice subscribed on her first device, and the store lost the
    /// payment's token. On a second device Bob restores first and is refused.
    /// The subscription then renews there, without a token: its earlier order
    /// on that device is Bob's refused claim, which proves no ownership. The
    /// renewal is flagged for the app, never credited to Bob.
    func testARenewalNeverFollowsARefusedRestoreClaimToItsUser() async throws {
        let world = World()
        let firstDevice = try await world.engine()
        await world.store.setLosesOrderToken(true)
        _ = try await firstDevice.purchase(productID: Catalog.monthly, user: "alice")
        await firstDevice.shutdown()

        let shared = try await world.engine(world.configuration(store: InMemoryOrderStore()))
        let bob = try await shared.restorePurchases(user: "bob")
        XCTAssertEqual(bob.failures.map(\.error.code), [.verificationRejected])
        await shared.setCurrentUser("bob")

        world.clock.advance(by: 31 * 24 * 3600)
        await world.store.processRenewals()
        await shared.waitUntilIdle()

        let credits = await world.server.allCredits
        XCTAssertEqual(Set(credits.map(\.userID)), ["alice"], "every renewal of Alice's subscription is hers: \(credits)")
        let bobHas = try await shared.entitlements(user: "bob")
        XCTAssertEqual(bobHas, [])
        let flagged = await shared.openOrders().filter { $0.status == .needsAttention }
        XCTAssertEqual(flagged.map(\.userID), [""], "the renewal waits for the app to assign it")
        await shared.shutdown()
    }

    /// The same, when the renewal first reaches that device in Bob's restore
    /// (its update came while the order store could not be read, and waited).
    /// The restore gave it to Bob: the server had never seen the renewal, so
    /// it could not refuse him. It is flagged for the app instead.
    func testARestoredRenewalOfAPurchaseTheServerRefusedHereIsFlagged() async throws {
        let world = World()
        let firstDevice = try await world.engine()
        await world.store.setLosesOrderToken(true)
        _ = try await firstDevice.purchase(productID: Catalog.monthly, user: "alice")
        await firstDevice.shutdown()

        let unreadable = Locked(false)
        let orders = InterceptingOrderStore(wrapping: InMemoryOrderStore()) { call in
            [.orderWithTransactionID, .ordersOfPurchase].contains(call.name) && unreadable.withLock({ $0 })
                ? .fail(UnreadableDisk()) : .proceed
        }
        let shared = try await world.engine(world.configuration(store: orders))
        let refused = try await shared.restorePurchases(user: "bob")
        XCTAssertEqual(refused.failures.map(\.error.code), [.verificationRejected])
        await shared.setCurrentUser("bob")

        unreadable.withLock { $0 = true }
        world.clock.advance(by: 31 * 24 * 3600)
        await world.store.processRenewals()
        await shared.waitUntilIdle()
        let waiting = await world.store.unfinishedTransactions()
        XCTAssertEqual(waiting.count, 1, "the renewal waits with the store while the orders cannot be read")
        unreadable.withLock { $0 = false }

        _ = try await shared.restorePurchases(user: "bob")
        await shared.waitUntilIdle()
        let credits = await world.server.allCredits
        XCTAssertEqual(Set(credits.map(\.userID)), ["alice"], "no renewal of Alice's subscription is Bob's: \(credits)")
        let bobHas = try await shared.entitlements(user: "bob")
        XCTAssertEqual(bobHas, [])
        let flagged = await shared.openOrders().filter { $0.status == .needsAttention }
        XCTAssertEqual(flagged.map(\.userID), [""], "the renewal waits for the app to assign it")
        await shared.shutdown()
    }

    private struct UnreadableDisk: Error {}

    /// A restore that delivered its purchase reports it delivered even when
    /// the order store cannot read the archived order back: it reported it
    /// owed, as the stale copy from before the delivery said.
    func testARestoreThatDeliveredReportsItDeliveredWhenTheStoreCannotReadItBack() async throws {
        let world = World()
        let firstDevice = try await world.engine()
        _ = try await firstDevice.purchase(productID: Catalog.pro, user: "alice")
        await firstDevice.shutdown()

        let orders = InterceptingOrderStore(wrapping: InMemoryOrderStore()) { call in
            if case .orderWithID = call { return .fail(UnreadableDisk()) }
            return .proceed
        }
        let newDevice = try await world.engine(world.configuration(store: orders))
        let result = try await newDevice.restorePurchases(user: "alice")
        XCTAssertEqual(result.delivered.map(\.status), [.completed], "\(result)")
        XCTAssertEqual(result.owed, [])
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["alice"])
    }
}
