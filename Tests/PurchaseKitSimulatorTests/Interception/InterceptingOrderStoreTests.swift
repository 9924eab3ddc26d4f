import XCTest
import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// An order store that implements every requirement, those with a default
/// too, answers each with a value of its own and notes which ones it reached.
final class ScriptedOrderStore: OrderStore {
    static let sampleOrder = Order(id: "o1", productID: "p", userID: "u", createdAt: Date(timeIntervalSince1970: 0))
    static let spend = ConsumableSpend(id: "s1", userID: "u", balanceKey: "coins", amount: 1,
                                       date: Date(timeIntervalSince1970: 0), balanceAfter: 9)
    static let renewal = RenewalStateRecord(userID: "u", originalTransactionID: "t1", state: .inBillingRetry,
                                            asOf: Date(timeIntervalSince1970: 0))
    private let log = Locked<[String]>([])
    var reached: [String] { log.withLock { $0 } }
    private func note(_ name: String) { log.withLock { $0.append(name) } }

    func save(_ order: Order) async throws { note("save") }
    func loadOpenOrders() async throws -> OrderLoadReport { note("loadOpenOrders"); return OrderLoadReport(orders: [Self.sampleOrder]) }
    func openOrders(forUser userID: String) async throws -> [Order] { note("openOrders"); return [Self.sampleOrder] }
    func orders(forUser userID: String) async throws -> [Order] { note("orders"); return [Self.sampleOrder, Self.sampleOrder] }
    func order(id: String) async throws -> Order? { note("orderWithID"); return Self.sampleOrder }
    func order(transactionID: String) async throws -> Order? { note("orderWithTransactionID"); return Self.sampleOrder }
    func orders(originalTransactionID: String) async throws -> [Order] { note("ordersOfPurchase"); return [Self.sampleOrder] }
    func order(token: String) async throws -> Order? { note("orderWithToken"); return Self.sampleOrder }
    func archive(orderID: String) async throws { note("archive") }
    func remove(orderID: String) async throws { note("remove") }
    func recordSpend(_ spend: ConsumableSpend) async throws -> ConsumableSpend { note("recordSpend"); return Self.spend }
    func spends(forUser userID: String) async throws -> [ConsumableSpend] { note("spends"); return [Self.spend] }
    func saveRenewalState(_ record: RenewalStateRecord) async throws { note("saveRenewalState") }
    func renewalStates(forUser userID: String) async throws -> [RenewalStateRecord] { note("renewalStates"); return [Self.renewal] }
}

/// Makes every call of ``OrderStore`` once, in the order of `Call.Name.allCases`.
func callEveryRequirement(of store: any OrderStore) async throws {
    try await store.save(ScriptedOrderStore.sampleOrder)
    _ = try await store.loadOpenOrders()
    _ = try await store.openOrders(forUser: "u")
    _ = try await store.orders(forUser: "u")
    _ = try await store.order(id: "o1")
    _ = try await store.order(transactionID: "t1")
    _ = try await store.orders(originalTransactionID: "t1")
    _ = try await store.order(token: "k1")
    try await store.archive(orderID: "o1")
    try await store.remove(orderID: "o1")
    _ = try await store.recordSpend(ScriptedOrderStore.spend)
    _ = try await store.spends(forUser: "u")
    try await store.saveRenewalState(ScriptedOrderStore.renewal)
    _ = try await store.renewalStates(forUser: "u")
}

final class InterceptingOrderStoreTests: XCTestCase {
    struct Refused: Error {}

    func testEveryRequirementIsForwardedAndRecordedInOrder() async throws {
        let base = ScriptedOrderStore()
        let store = InterceptingOrderStore(wrapping: base)
        try await callEveryRequirement(of: store)
        let names = InterceptingOrderStore.Call.Name.allCases.map(\.rawValue)
        XCTAssertEqual(base.reached, names, "the defaulted requirements reach the wrapped store too")
        XCTAssertEqual(store.calls.map(\.name.rawValue), names)
        XCTAssertEqual(store.calls.first, .save(ScriptedOrderStore.sampleOrder))
        XCTAssertEqual(store.calls(.orderWithToken), [.orderWithToken("k1")])
    }

    func testForwardedAnswersAreTheWrappedStoresOwn() async throws {
        let store = InterceptingOrderStore(wrapping: ScriptedOrderStore())
        let spent = try await store.recordSpend(ConsumableSpend(id: "other", userID: "u", balanceKey: "coins", amount: 5,
                                                                date: Date(), balanceAfter: 0))
        XCTAssertEqual(spent, ScriptedOrderStore.spend)
        let renewals = try await store.renewalStates(forUser: "u")
        XCTAssertEqual(renewals, [ScriptedOrderStore.renewal])
        let orders = try await store.orders(forUser: "u")
        XCTAssertEqual(orders.count, 2)
    }

    func testAFailedCallThrowsAndDoesNotReachTheWrappedStore() async throws {
        let base = ScriptedOrderStore()
        let store = InterceptingOrderStore(wrapping: base) { call in
            if case .save(let order) = call, order.id == "o1" { return .fail(Refused()) }
            return .proceed
        }
        do {
            try await store.save(ScriptedOrderStore.sampleOrder)
            XCTFail("the save went through")
        } catch {
            XCTAssertTrue(error is Refused, "\(error)")
        }
        try await store.archive(orderID: "o1")
        XCTAssertEqual(base.reached, ["archive"])
        XCTAssertEqual(store.calls.map(\.name), [.save, .archive], "a failed call is recorded too")
    }

    func testAThrowingHookFailsTheCall() async throws {
        let store = InterceptingOrderStore(wrapping: ScriptedOrderStore()) { _ in throw Refused() }
        do {
            _ = try await store.spends(forUser: "u")
            XCTFail("the read went through")
        } catch {
            XCTAssertTrue(error is Refused, "\(error)")
        }
    }

    func testAnAnswerReplacesTheWrappedStore() async throws {
        let base = ScriptedOrderStore()
        let store = InterceptingOrderStore(wrapping: base) { call in
            switch call.name {
            case .orderWithID: return .answer(.order(nil))
            case .orders: return .answer(.orders([]))
            case .save: return .answer(.done)
            default: return .proceed
            }
        }
        let found = try await store.order(id: "o1")
        XCTAssertNil(found)
        let orders = try await store.orders(forUser: "u")
        XCTAssertEqual(orders, [])
        try await store.save(ScriptedOrderStore.sampleOrder)
        let open = try await store.openOrders(forUser: "u")
        XCTAssertEqual(open, [ScriptedOrderStore.sampleOrder])
        XCTAssertEqual(base.reached, ["openOrders"])
    }

    func testProceedThenSeesTheOutcomeAndMayReplaceItWithAnError() async throws {
        let base = ScriptedOrderStore()
        let seen = Locked<[String]>([])
        let store = InterceptingOrderStore(wrapping: base) { call in
            .proceedThen { outcome in
                if case .success(.spend(let spend)) = outcome { seen.withLock { $0.append(spend.id) } }
                if call.isWrite { throw Refused() }
            }
        }
        let spends = try await store.spends(forUser: "u")
        XCTAssertEqual(spends, [ScriptedOrderStore.spend])
        do {
            _ = try await store.recordSpend(ScriptedOrderStore.spend)
            XCTFail("the after hook did not fail the write")
        } catch {
            XCTAssertTrue(error is Refused, "\(error)")
        }
        XCTAssertEqual(base.reached, ["spends", "recordSpend"], "the write reached the store before it failed")
        XCTAssertEqual(seen.withLock { $0 }, ["s1"])
    }

    func testTheHookCanBeReplacedAndRemoved() async throws {
        let store = InterceptingOrderStore(wrapping: ScriptedOrderStore())
        store.intercept { _ in .fail(Refused()) }
        let failed = try? await store.loadOpenOrders()
        XCTAssertNil(failed)
        store.intercept(nil)
        let loaded = try await store.loadOpenOrders()
        XCTAssertEqual(loaded.orders, [ScriptedOrderStore.sampleOrder])
        store.clearCalls()
        XCTAssertEqual(store.calls, [])
    }

    func testWaitingForCallsReturnsOnceTheyAreMade() async throws {
        let store = InterceptingOrderStore(wrapping: InMemoryOrderStore())
        try await store.save(ScriptedOrderStore.sampleOrder)
        await store.waitForCalls(.save) // made already
        let waiter = Task { await store.waitForCalls(2) { $0.isWrite } }
        try await store.archive(orderID: "o1")
        await waiter.value
        XCTAssertEqual(store.calls.map(\.name), [.save, .archive])
    }

    func testConcurrentCallsAreAllRecorded() async throws {
        let store = InterceptingOrderStore(wrapping: InMemoryOrderStore()) { _ in .proceed }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask { _ = try? await store.order(id: "o\(index)") }
            }
        }
        XCTAssertEqual(Set(store.calls), Set((0..<50).map { .orderWithID("o\($0)") }))
    }

    /// The record of calls is printed by tests and hooks (a failed assertion,
    /// a hook's trace): a lookup by order token must not print the token.
    func testARecordedLookupByTokenDoesNotShowTheToken() async throws {
        let store = InterceptingOrderStore(wrapping: ScriptedOrderStore())
        let token = "7d0c2b1e-5a9f-4e3b-8c6d-secret-token"
        _ = try await store.order(token: token)
        _ = try await store.order(id: "o1")
        let call = try XCTUnwrap(store.calls.first)
        var dumped = ""
        dump(store.calls, to: &dumped)
        let renderings = ["description": String(describing: call), "String(reflecting:)": String(reflecting: call),
                          "array": "\(store.calls)", "dump": dumped]
        for (label, text) in renderings {
            XCTAssertFalse(text.contains(token), "\(label) shows the token")
            XCTAssertTrue(text.contains("orderWithToken"), "\(label): \(text)")
        }
        XCTAssertTrue("\(store.calls)".contains("o1"), "other arguments stay readable")
        XCTAssertEqual(store.calls(.orderWithToken), [.orderWithToken(token)], "the call itself keeps its argument")
    }
}
