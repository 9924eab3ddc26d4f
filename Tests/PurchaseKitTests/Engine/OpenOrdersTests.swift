import Foundation
@testable import PurchaseKit
import XCTest

/// The engine finds the orders a store update may belong to through indexes,
/// not by looking at every open order. These tests hold the indexes to the
/// full scan they replace: after any sequence of saves, payments, token
/// changes and removals, each lookup returns what filtering every open order
/// would, and the reconciler matches every update exactly as it would with
/// every open order in front of it.
final class OpenOrdersTests: XCTestCase {
    private let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    private let reconciler = Reconciler(clockTolerance: 60, matchingWindow: 3_600)
    private let products = ["p", "q"]
    private let statuses: [OrderStatus] = [.created, .purchasing, .deferred, .purchased, .delivered, .failed, .needsAttention]

    private struct Pools {
        var random: SeededRandomNumberGenerator
        // Few values each, so that tokens and transactions collide often.
        let tokens = ["tok-1", "tok-2", "tok-3", "tok-4"]
        let transactionIDs = ["t1", "t2", "t3", "t4", "t5"]
        let orderIDs = (0..<12).map { "o\($0)" }

        mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
    }

    private func randomOrder(_ id: String, _ pools: inout Pools) -> Order {
        var order = Order(id: id, productID: pools.pick(products), userID: pools.pick(["u1", "u2"]),
                          token: pools.chance(85) ? pools.pick(pools.tokens) : nil,
                          createdAt: t0.addingTimeInterval(Double(Int.random(in: 0..<4, using: &pools.random)) * 60))
        order.status = pools.pick(statuses)
        order.paymentBeganAt = order.createdAt.addingTimeInterval(Double(Int.random(in: 0..<120, using: &pools.random)))
        if pools.chance(45) {
            let id = pools.pick(pools.transactionIDs)
            order.transaction = StoreTransaction(id: id, originalID: pools.chance(50) ? pools.pick(pools.transactionIDs) : id,
                                                 productID: order.productID, purchaseDate: order.createdAt,
                                                 orderToken: order.token)
        }
        return order
    }

    private func randomTransaction(_ pools: inout Pools) -> StoreTransaction {
        let id = pools.pick(pools.transactionIDs)
        return StoreTransaction(id: id, originalID: pools.chance(60) ? id : pools.pick(pools.transactionIDs),
                                productID: pools.pick(products),
                                purchaseDate: t0.addingTimeInterval(Double(Int.random(in: -120..<600, using: &pools.random))),
                                orderToken: pools.chance(50) ? pools.pick(pools.tokens + ["tok-unknown"]) : nil)
    }

    private func oldestFirst(_ orders: some Sequence<Order>) -> [Order] {
        orders.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    private func ids(_ orders: [Order]) -> [String] { orders.map(\.id) }

    /// Every lookup against the filter it replaces.
    private func assertLookupsMatchAScan(_ open: OpenOrders, _ pools: Pools, _ context: String) {
        let all = Array(open.values)
        for token in pools.tokens {
            XCTAssertEqual(ids(open.orders(token: token)), ids(oldestFirst(all.filter { $0.token == token })), "token \(token), \(context)")
        }
        for id in pools.transactionIDs {
            XCTAssertEqual(ids(open.orders(transactionID: id)), ids(oldestFirst(all.filter { $0.transactionID == id })),
                           "transaction \(id), \(context)")
            XCTAssertEqual(ids(open.orders(originalTransactionID: id)),
                           ids(oldestFirst(all.filter { $0.transaction?.originalID == id })), "original \(id), \(context)")
        }
        for product in products {
            XCTAssertEqual(ids(open.unpaidOrders(productID: product)),
                           ids(oldestFirst(all.filter { $0.transaction == nil && $0.productID == product })),
                           "unpaid \(product), \(context)")
        }
    }

    func testEveryLookupReturnsWhatAScanOfEveryOpenOrderWould() {
        for seed in 1...40 {
            var pools = Pools(random: SeededRandomNumberGenerator(seed: UInt64(seed)))
            var open = OpenOrders()
            var mirror: [String: Order] = [:]
            for step in 0..<60 {
                let id = pools.pick(pools.orderIDs)
                if pools.chance(20) {
                    open[id] = nil
                    mirror[id] = nil
                } else if var order = mirror[id], pools.chance(60) {
                    // A save of the same order: paid, moved on, or given another token.
                    if order.transaction == nil, pools.chance(50) {
                        order.transaction = StoreTransaction(id: pools.pick(pools.transactionIDs), productID: order.productID,
                                                             purchaseDate: order.createdAt, orderToken: order.token)
                    } else if pools.chance(30) {
                        order.token = pools.chance(80) ? pools.pick(pools.tokens) : nil
                    }
                    order.status = pools.pick(statuses)
                    open[id] = order
                    mirror[id] = order
                } else {
                    let order = randomOrder(id, &pools)
                    open[id] = order
                    mirror[id] = order
                }
                XCTAssertEqual(open.count, mirror.count)
                XCTAssertEqual(Set(open.values.map(\.id)), Set(mirror.keys))
                assertLookupsMatchAScan(open, pools, "seed \(seed), step \(step)")
            }
        }
    }

    func testThePaidCandidatesMatchEveryUpdateAsEveryOpenOrderWould() {
        var compared = 0
        var matchedByTime = 0
        for seed in 1...200 {
            var pools = Pools(random: SeededRandomNumberGenerator(seed: UInt64(seed)))
            var open = OpenOrders()
            for id in pools.orderIDs where pools.chance(70) { open[id] = randomOrder(id, &pools) }
            let all = oldestFirst(open.values)
            for _ in 0..<20 {
                let transaction = randomTransaction(&pools)
                let updateToken = pools.chance(30) ? pools.pick(pools.tokens) : transaction.orderToken
                let kind: TransactionUpdate.Kind = pools.chance(20) ? .restored : .purchased
                let storeInitiated = pools.chance(10)
                let candidates = open.candidates(for: transaction, answering: updateToken)
                XCTAssertEqual(Set(ids(candidates)).count, candidates.count, "each candidate once")
                // Exactly the orders filed under one of the update's keys, oldest first.
                let filed = all.filter { order in
                    order.transactionID == transaction.id || order.transaction?.originalID == transaction.originalID
                        || order.token.map { $0 == transaction.orderToken || $0 == updateToken } == true
                        || transaction.orderToken == nil && order.transaction == nil && order.productID == transaction.productID
                }
                XCTAssertEqual(ids(candidates), ids(filed), "seed \(seed)")
                let indexed = reconciler.match(transaction, kind: kind, answering: updateToken, orders: candidates,
                                               currentUserID: "u1", storeInitiated: storeInitiated)
                let scanned = reconciler.match(transaction, kind: kind, answering: updateToken, orders: all,
                                               currentUserID: "u1", storeInitiated: storeInitiated)
                XCTAssertEqual(indexed, scanned, "seed \(seed): \(transaction.id) token \(transaction.orderToken ?? "none")")
                compared += 1
                if transaction.orderToken == nil, case .order = scanned { matchedByTime += 1 }
            }
        }
        // The comparison covers the rule that looks widest: a lost token matched by time.
        XCTAssertGreaterThan(matchedByTime, 20, "of \(compared) updates")
    }

    func testTheUnpaidCandidatesMatchEveryUpdateAsEveryOpenOrderWould() {
        let kinds: [TransactionUpdate.Kind] = [.purchasing, .deferred, .interrupted, .cancelled, .failed(.unknown)]
        var matched = 0
        for seed in 1...200 {
            var pools = Pools(random: SeededRandomNumberGenerator(seed: UInt64(seed)))
            var open = OpenOrders()
            for id in pools.orderIDs where pools.chance(70) { open[id] = randomOrder(id, &pools) }
            for _ in 0..<20 {
                let update = TransactionUpdate(kind: pools.pick(kinds), productID: pools.pick(products),
                                               orderToken: pools.chance(50) ? pools.pick(pools.tokens) : nil, date: t0)
                let indexed = reconciler.matchUnpaid(update, orders: open.candidates(forUnpaid: update))
                let scanned = reconciler.matchUnpaid(update, orders: oldestFirst(open.values))
                XCTAssertEqual(indexed, scanned, "seed \(seed)")
                if scanned != nil { matched += 1 }
            }
        }
        XCTAssertGreaterThan(matched, 100)
    }
}
