import XCTest
import PurchaseKit
import PurchaseKitSimulator

final class DeliveryFaultTests: XCTestCase {
    func testLostOrderTokenGlobally() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        await store.setLosesOrderToken(true)
        try await store.add(TestCatalog.payment(TestCatalog.coins, token: "order-9"))
        XCTAssertEqual(observer.kinds, [.purchasing, .purchased])
        XCTAssertTrue(observer.updates.allSatisfy { $0.orderToken == nil })
        XCTAssertNil(observer.updates.last?.transaction?.orderToken)
    }

    func testLostOrderTokenPerProductAndScripted() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        await store.setFaults(DeliveryFaults(losesOrderToken: true), for: TestCatalog.pass)
        await store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true))
        try await store.add(TestCatalog.payment(TestCatalog.coins, token: "scripted"))
        try await store.add(TestCatalog.payment(TestCatalog.coins, token: "kept"))
        try await store.add(TestCatalog.payment(TestCatalog.pass, token: "per-product"))
        let tokens = observer.updates.filter { $0.kind == .purchased }.map { $0.transaction?.orderToken }
        XCTAssertEqual(tokens, [nil, "kept", nil])
    }

    func testDuplicateDeliveries() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        await store.setDuplicateDeliveries(2)
        try await store.add(TestCatalog.payment(TestCatalog.coins))
        XCTAssertEqual(observer.batches.count, 3)
        let ids = Set(observer.updates.compactMap { $0.transaction?.id })
        XCTAssertEqual(ids.count, 1, "duplicates carry the same transaction")
        XCTAssertEqual(observer.updates.filter { $0.kind == .purchased }.count, 3)
    }

    func testHeldUpdatesArriveLateAndReversed() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        await store.setHoldsUpdates(true)
        try await store.add(TestCatalog.payment(TestCatalog.coins, token: "a"))
        try await store.add(TestCatalog.payment(TestCatalog.pass, token: "b"))
        XCTAssertTrue(observer.updates.isEmpty, "held updates are not delivered yet")
        let held = await store.heldUpdateCount()
        XCTAssertEqual(held, 4)
        await store.releaseHeldUpdates(order: .reversed)
        XCTAssertEqual(observer.kinds, [.purchased, .purchasing, .purchased, .purchasing])
        XCTAssertEqual(observer.updates.map(\.productID),
                       [TestCatalog.pass, TestCatalog.pass, TestCatalog.coins, TestCatalog.coins])
        try await store.add(TestCatalog.payment(TestCatalog.coins, token: "c"))
        XCTAssertEqual(observer.updates.count, 6, "release stops holding")
    }

    func testShuffledReleaseIsDeterminedByTheSeed() async throws {
        func run(seed: UInt64) async throws -> [String] {
            let (store, _, observer) = try await TestCatalog.makeStore(seed: seed)
            await store.setHoldsUpdates(true)
            for index in 0..<8 { try await store.add(TestCatalog.payment(TestCatalog.coins, token: "o\(index)")) }
            await store.releaseHeldUpdates(order: .shuffled)
            return observer.updates.map { "\($0.kind)-\($0.orderToken ?? "")" }
        }
        let first = try await run(seed: 42)
        let again = try await run(seed: 42)
        let other = try await run(seed: 7)
        XCTAssertEqual(first, again)
        XCTAssertEqual(first.count, 16)
        XCTAssertNotEqual(first, other)
        XCTAssertEqual(first.sorted(), other.sorted())
    }
}
