import Foundation
@testable import PurchaseKit
import PurchaseKitSimulator
import XCTest

/// The gate under which store updates are matched to orders: updates of
/// different payments go side by side, anything that could touch the same
/// order waits, and a tokenless update has every order to itself.
final class UpdateGateTests: XCTestCase {
    private let date = Date(timeIntervalSince1970: 1_000)

    private func paid(_ id: String, original: String? = nil, token: String?, answering: String? = nil) -> TransactionUpdate {
        let transaction = StoreTransaction(id: id, originalID: original, productID: "p", purchaseDate: date, orderToken: token)
        return TransactionUpdate(kind: .purchased, productID: "p", orderToken: answering ?? token, transaction: transaction, date: date)
    }

    func testClaimsNameEveryWayAnUpdateCanReachAnOrder() {
        XCTAssertEqual(UpdateGate.claim(for: paid("10", original: "7", token: "a", answering: "b")),
                       .keys([.token("a"), .token("b"), .transaction("10"), .transaction("7")]))
        XCTAssertEqual(UpdateGate.claim(for: paid("10", token: nil)), .exclusive, "a lost token may be matched by guess")
        let failed = TransactionUpdate(kind: .failed(.unknown), productID: "p", orderToken: "a", paymentID: "pay-1", date: date)
        XCTAssertEqual(UpdateGate.claim(for: failed), .keys([.token("a"), .transaction("pay-1")]))
        let tokenless = TransactionUpdate(kind: .deferred, productID: "p", orderToken: nil, date: date)
        XCTAssertEqual(UpdateGate.claim(for: tokenless), .exclusive)
        let revoked = TransactionUpdate(kind: .revoked, productID: "p", orderToken: "a",
                                        transaction: StoreTransaction(id: "10", productID: "p", purchaseDate: date), date: date)
        XCTAssertEqual(UpdateGate.claim(for: revoked), .exclusive)
    }

    func testDisjointClaimsEnterTogetherAndOverlappingOnesWait() async {
        var gate = UpdateGate()
        XCTAssertTrue(gate.tryEnter(.keys([.token("a"), .transaction("1")])))
        XCTAssertTrue(gate.tryEnter(.keys([.token("b"), .transaction("2")])), "another payment goes side by side")
        XCTAssertFalse(gate.tryEnter(.keys([.token("c"), .transaction("1")])), "the same transaction waits")
        XCTAssertFalse(gate.tryEnter(.exclusive))
        // The refused claim took none of its keys: its free token stays free.
        XCTAssertTrue(gate.tryEnter(.keys([.token("c"), .token("c")])))
        XCTAssertEqual(gate.leave(.keys([.token("a"), .transaction("1")])).count, 0)
        XCTAssertEqual(gate.leave(.keys([.token("b"), .transaction("2")])).count, 0)
        XCTAssertFalse(gate.tryEnter(.exclusive), "the token claim still holds")
        XCTAssertEqual(gate.leave(.keys([.token("c"), .token("c")])).count, 0)
        XCTAssertTrue(gate.tryEnter(.exclusive), "every key given back")
    }

    func testAFirstPurchaseClaimsItsTransactionAndTokenOnce() {
        // A first purchase's transaction is its own original, and the update
        // answers the payment whose token its transaction carries.
        let claim = UpdateGate.claim(for: paid("1", token: "a"))
        guard case .keys(let keys) = claim else { return XCTFail("a paid update with a token claims keys") }
        XCTAssertEqual(keys.count, 2, "\(keys)")
        XCTAssertEqual(Set(keys), [.token("a"), .transaction("1")])
    }

    func testAKeyAClaimNamesTwiceIsHeldAndGivenBackOnce() {
        let claim = UpdateGate.Claim.keys([.token("a"), .transaction("1"), .transaction("1")])
        var gate = UpdateGate()
        XCTAssertTrue(gate.tryEnter(claim))
        XCTAssertFalse(gate.tryEnter(.keys([.transaction("1")])), "held while the claim is")
        XCTAssertEqual(gate.leave(claim).count, 0)
        XCTAssertTrue(gate.tryEnter(.keys([.token("a"), .transaction("1")])), "every key given back")
        XCTAssertFalse(gate.tryEnter(.exclusive), "the new claim holds them now")
    }

    func testWaitersAreServedInTurnAndAnExclusiveClaimIsNotOvertaken() async {
        let gate = Locked(UpdateGate())
        let order = Locked<[String]>([])
        XCTAssertTrue(gate.withLock { $0.tryEnter(.keys([.token("a")])) })
        // An exclusive claim waits for the keyed holder; a later keyed claim on
        // another key must queue behind it, not slip past.
        let exclusive = Task {
            await suspend { continuation in gate.withLock { $0.wait(.exclusive, continuation) } }
            order.withLock { $0.append("exclusive") }
        }
        while gate.withLock({ $0.waitingCount }) < 1 { await Task.yield() }
        XCTAssertFalse(gate.withLock { $0.tryEnter(.keys([.token("b")])) }, "nobody overtakes a waiter")
        let keyed = Task {
            await suspend { continuation in gate.withLock { $0.wait(.keys([.token("b")]), continuation) } }
            order.withLock { $0.append("keyed") }
        }
        // Both wait before the holder leaves.
        while gate.withLock({ $0.waitingCount }) < 2 { await Task.yield() }
        let first = gate.withLock { $0.leave(.keys([.token("a")])) }
        XCTAssertEqual(first.count, 1, "only the exclusive claim is granted")
        first.forEach { $0.resume() }
        await exclusive.value
        let second = gate.withLock { $0.leave(.exclusive) }
        XCTAssertEqual(second.count, 1)
        second.forEach { $0.resume() }
        await keyed.value
        XCTAssertEqual(order.withLock { $0 }, ["exclusive", "keyed"])
    }
}

/// The engine under concurrent payments: payments of different users are
/// matched side by side, and the order store sees their `purchased` saves at
/// the same time (so a journal can flush them together).
final class ConcurrentMatchingTests: XCTestCase {
    func testPaidUpdatesOfDifferentPaymentsAreSavedSideBySide() async throws {
        let world = World()
        let gated = InterceptingOrderStore(wrapping: world.orders)
        var configuration = world.configuration(store: gated)
        configuration.limits.maximumConcurrentPurchases = 8
        let engine = try await world.engine(configuration)
        // Holds `purchased` saves until the gate opens.
        let gate = Gate()
        gated.intercept { call in
            if case .save(let order) = call, order.status == .purchased { await gate.pass() }
            return .proceed
        }
        let calls = (0..<8).map { index in
            Task { try await engine.purchase(productID: Catalog.coins, user: "user-\(index)") }
        }
        // Every payment's `purchased` save is in the store at once: none waits
        // for another's to finish. (Matched one at a time, the second save
        // would wait for the first for ever: the expectation's time limit
        // turns that into a failure instead of a hang.)
        let allHeld = expectation(description: "eight purchased saves held at once")
        Task {
            await gated.waitForSaves(of: .purchased, count: 8)
            allHeld.fulfill()
        }
        await fulfillment(of: [allHeld], timeout: 30)
        gate.open()
        for call in calls {
            let result = try await call.value
            guard case .success = result else { return XCTFail("\(result)") }
        }
        let credits = await world.creditCounts()
        XCTAssertEqual(credits.count, 8)
        XCTAssertTrue(credits.values.allSatisfy { $0 == 1 })
    }
}
