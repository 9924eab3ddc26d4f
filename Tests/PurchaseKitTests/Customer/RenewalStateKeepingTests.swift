import Foundation
import XCTest
@_spi(Testing) @testable import PurchaseKit
import PurchaseKitSimulator

/// What the store said about a subscription's renewal, kept by the order
/// store: an offline launch still knows a grace period and whether it renews.
final class RenewalStateKeepingTests: XCTestCase {
    private enum Kind: String, CaseIterable { case memory, file, journal }

    private func open(_ kind: Kind, _ directory: URL, memory: InMemoryOrderStore, clock: any PurchaseClock) throws -> any OrderStore {
        switch kind {
        case .memory: return memory
        case .file: return try FileOrderStore(directory: directory, configuration: .init(clock: clock))
        case .journal: return try JournalOrderStore(directory: directory, configuration: .init(clock: clock, snapshotThreshold: 256))
        }
    }

    func testAnOfflineLaunchKnowsTheGracePeriodTheStoreGaveBefore() async throws {
        for kind in Kind.allCases {
            let world = World(settings: .init(billingIssuesEnabled: true, billingGracePeriodEnabled: true))
            let directory = try makeTemporaryDirectory(self)
            let first = try open(kind, directory, memory: world.orders, clock: world.clock)
            let engine = try await world.engine(world.configuration(store: first))
            _ = try await engine.purchase(productID: Catalog.monthly, user: "alice")
            await engine.waitUntilIdle()
            try await world.failFirstRenewal(of: Catalog.monthly, user: "alice", orders: first, engine: engine)
            let online = try await engine.refreshCustomerInfo(user: "alice")
            let told = world.clock.now
            XCTAssertEqual(online.subscriptions[Catalog.group]?.status, .inGracePeriod, "\(kind)")
            await (first as? JournalOrderStore)?.close()

            // A cold launch an hour later, offline.
            world.clock.advance(by: 3600)
            let store = try open(kind, directory, memory: world.orders, clock: world.clock)
            let offline = InterceptingPaymentQueue(wrapping: world.store, hook: InterceptingPaymentQueue.offline)
            let relaunched = try await world.engine(world.configuration(store: store, queue: offline))
            let info = try await relaunched.customerInfo(user: "alice")
            let group = try XCTUnwrap(info.subscriptions[Catalog.group], "\(kind)")
            XCTAssertEqual(group.status, .inGracePeriod, "\(kind)")
            XCTAssertEqual(group.willAutoRenew, true, "\(kind)")
            XCTAssertEqual(group.renewalStateAsOf, told, "\(kind)")
            XCTAssertNotNil(group.gracePeriodExpirationDate, "\(kind)")
            XCTAssertTrue(info.isEntitled(to: Catalog.monthly), "\(kind): the grace period keeps access offline")
            let entitlements = try await relaunched.entitlements(user: "alice")
            XCTAssertEqual(entitlements.map(\.productID), [Catalog.monthly], "\(kind)")
            await (store as? JournalOrderStore)?.close()
        }
    }

    /// A launch learns a grace period that the order store fails to keep; the
    /// engine then reads the states kept before (once per user and process):
    /// the older one the store holds does not override what the store said since.
    func testAnOlderKeptStateDoesNotOverrideANewerOneTheOrderStoreFailedToKeep() async throws {
        let world = World(settings: .init(billingIssuesEnabled: true, billingGracePeriodEnabled: true))
        let first = try await world.engine()
        _ = try await first.purchase(productID: Catalog.monthly, user: "alice")
        let online = try await first.refreshCustomerInfo(user: "alice")
        XCTAssertEqual(online.subscriptions[Catalog.group]?.status, .subscribed)
        let kept = try await world.orders.renewalStates(forUser: "alice")
        XCTAssertEqual(kept.map(\.state), [.active(willRenew: true)])
        await first.shutdown()

        let failing = InterceptingOrderStore(wrapping: world.orders) { call in
            guard case .saveRenewalState = call else { return .proceed }
            return .fail(PurchaseKitError(.persistenceWriteFailed, "disk full", advice: ""))
        }
        let relaunched = try await world.engine(world.configuration(store: failing))
        try await world.failFirstRenewal(of: Catalog.monthly, user: "alice", orders: failing, engine: relaunched)
        let info = try await relaunched.refreshCustomerInfo(user: "alice")
        let storeCalls = failing.calls.map(\.name).filter { $0 == .saveRenewalState || $0 == .renewalStates }
        XCTAssertEqual(storeCalls, [.saveRenewalState, .renewalStates], "the grace period could not be kept, then the kept states were read")
        let stillKept = try await world.orders.renewalStates(forUser: "alice")
        XCTAssertEqual(stillKept, kept, "the order store still holds the older state")
        let group = try XCTUnwrap(info.subscriptions[Catalog.group])
        XCTAssertEqual(group.status, .inGracePeriod)
        XCTAssertEqual(group.renewalStateAsOf, world.clock.now)
        XCTAssertTrue(info.isEntitled(to: Catalog.monthly))
        let later = try await relaunched.customerInfo(user: "alice")
        XCTAssertEqual(later.subscriptions[Catalog.group]?.status, .inGracePeriod)
    }

    /// A snapshot that begins after a renewal state was kept replaces the
    /// journal holding its record: the snapshot carries the state itself,
    /// so a later offline launch still knows it.
    func testAJournalSnapshotBegunAfterARenewalStateKeepsIt() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeJournalStore(directory, snapshotThreshold: 1)
        _ = try await store.loadOpenOrders()
        let kept = RenewalStateRecord(userID: "alice", originalTransactionID: "o-1",
                                      state: .inGracePeriod(until: testEpoch.addingTimeInterval(500)), asOf: testEpoch)
        try await store.saveRenewalState(kept)
        try await saveUntilASnapshotBegins(store)
        await store.close()
        let reopened = try makeJournalStore(directory)
        let states = try await reopened.renewalStates(forUser: "alice")
        XCTAssertEqual(states, [kept])
        await reopened.close()
    }

    func testTheStoresKeepTheNewestStatePerSubscriptionThroughSnapshotsAndImport() async throws {
        let t0 = testEpoch
        func record(_ original: String, _ state: SubscriptionRenewalState, _ seconds: TimeInterval, user: String = "alice") -> RenewalStateRecord {
            RenewalStateRecord(userID: user, originalTransactionID: original, state: state, asOf: t0.addingTimeInterval(seconds))
        }
        let grace = SubscriptionRenewalState.inGracePeriod(until: t0.addingTimeInterval(500))
        let fileDirectory = try makeTemporaryDirectory(self)
        let journalDirectory = try makeTemporaryDirectory(self)
        let stores: [(String, () throws -> any OrderStore)] = [
            ("FileOrderStore", { try makeStore(fileDirectory) }),
            ("JournalOrderStore", { try makeJournalStore(journalDirectory, snapshotThreshold: 1) }),
        ]
        for (name, open) in stores {
            let store = try open()
            try await store.saveRenewalState(record("o-1", .active(willRenew: true), 10))
            try await store.saveRenewalState(record("o-1", grace, 20))
            try await store.saveRenewalState(record("o-1", .expired, 5))  // older: ignored
            try await store.saveRenewalState(record("o-2", .active(willRenew: false), 30))
            try await store.saveRenewalState(record("o-3", .inBillingRetry, 40, user: "bob"))
            await (store as? JournalOrderStore)?.close()
            let reopened = try open()
            let alice = try await reopened.renewalStates(forUser: "alice")
            XCTAssertEqual(alice, [record("o-1", grace, 20), record("o-2", .active(willRenew: false), 30)], name)
            let bob = try await reopened.renewalStates(forUser: "bob")
            XCTAssertEqual(bob, [record("o-3", .inBillingRetry, 40, user: "bob")], name)
            await (reopened as? JournalOrderStore)?.close()
        }
        // The journal imports them from a FileOrderStore folder.
        let imported = try JournalOrderStore(directory: fileDirectory)
        let kept = try await imported.renewalStates(forUser: "alice")
        XCTAssertEqual(kept.map(\.state), [grace, .active(willRenew: false)])
        await imported.close()
    }
}
