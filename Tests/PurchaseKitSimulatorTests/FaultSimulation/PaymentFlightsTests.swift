import XCTest
@_spi(Testing) import PurchaseKit
@testable import PurchaseKitSimulator

/// The fault simulation's check of the rule "two purchase calls for the same
/// product and user make one payment in flight", through the simulated store:
/// a payment is in flight from the moment it is carried to the store until
/// the store sends its outcome or lets go of it.
final class PaymentFlightsTests: XCTestCase {
    func testASecondPaymentWhileTheFirstWaitsForTheStoreIsReported() async throws {
        let (store, clock, _) = try await TestCatalog.makeStore()
        await store.setLatency(5)
        let flights = PaymentFlights()
        let first = Task { try await carry(TestCatalog.payment(TestCatalog.coins, token: "first"), to: store, by: flights) }
        await clock.waitForSleepers(count: 1)
        let second = Task { try await carry(TestCatalog.payment(TestCatalog.coins, token: "second"), to: store, by: flights) }
        await clock.waitForSleepers(count: 2)
        clock.advance(by: 5)
        try await first.value
        try await second.value
        XCTAssertEqual(flights.violations, ["two payments in flight at once for \(TestCatalog.coins) and user-a"])
    }

    func testPaymentsOfOtherUsersAndOtherProductsMayOverlap() async throws {
        let (store, clock, _) = try await TestCatalog.makeStore()
        await store.setLatency(5)
        let flights = PaymentFlights()
        let payments = [TestCatalog.payment(TestCatalog.coins, token: "a"),
                        TestCatalog.payment(TestCatalog.coins, token: "b", user: "user-b"),
                        TestCatalog.payment(TestCatalog.pass, token: "c")]
        var calls: [Task<Void, any Error>] = []
        for (index, payment) in payments.enumerated() {
            calls.append(Task { try await carry(payment, to: store, by: flights) })
            await clock.waitForSleepers(count: index + 1)
        }
        clock.advance(by: 5)
        for call in calls { try await call.value }
        XCTAssertEqual(flights.violations, [])
    }

    func testAPaymentAfterTheFirstOnesOutcomeWasSentIsNotReported() async throws {
        let (store, _, _) = try await TestCatalog.makeStore()
        // The engine hears the first payment's outcome and holds on to it:
        // the first `add` has not returned when the second payment comes.
        let observer = HoldingObserver()
        await store.attach(observer)
        let flights = PaymentFlights()
        let first = Task { try await carry(TestCatalog.payment(TestCatalog.coins, token: "first"), to: store, by: flights) }
        await observer.waitUntilHolding()
        try await carry(TestCatalog.payment(TestCatalog.coins, token: "second"), to: store, by: flights)
        observer.release()
        try await first.value
        XCTAssertEqual(flights.violations, [])
    }

    func testAPaymentTheStoreRefusedIsNoLongerInFlight() async throws {
        let (store, _, _) = try await TestCatalog.makeStore()
        await store.setCanMakePayments(false)
        let flights = PaymentFlights()
        for token in ["first", "second"] {
            do {
                try await carry(TestCatalog.payment(TestCatalog.coins, token: token), to: store, by: flights)
                XCTFail("the store took a payment while payments are off")
            } catch let error as PurchaseKitError {
                XCTAssertEqual(error.code, .paymentsNotAllowed)
            }
        }
        XCTAssertEqual(flights.violations, [])
    }
}

/// What the fault simulation's process does with a payment.
private func carry(_ payment: Payment, to store: SimulatedPaymentQueue, by flights: PaymentFlights) async throws {
    try await flights.carry(payment) { onOutcome in try await store.add(payment, onOutcome: onOutcome) }
}

/// An observer that holds on to the first batch it hears until released,
/// and takes every later batch at once.
private final class HoldingObserver: PaymentQueueObserver {
    private struct State {
        var holding = false
        var heldCaller: CheckedContinuation<Void, Never>?
        var watcher: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    func paymentQueue(didUpdate updates: [TransactionUpdate]) async {
        await withCheckedContinuation { (caller: CheckedContinuation<Void, Never>) in
            let (watcher, holds) = state.withLock { s -> (CheckedContinuation<Void, Never>?, Bool) in
                guard !s.holding else { return (nil, false) }
                s.holding = true
                s.heldCaller = caller
                defer { s.watcher = nil }
                return (s.watcher, true)
            }
            watcher?.resume()
            if !holds { caller.resume() }
        }
    }

    func paymentQueue(didReceive intent: PromotedPurchaseIntent) async {}

    /// Returns once a batch is held.
    func waitUntilHolding() async {
        await withCheckedContinuation { (watcher: CheckedContinuation<Void, Never>) in
            let holding = state.withLock { s -> Bool in
                if !s.holding { s.watcher = watcher }
                return s.holding
            }
            if holding { watcher.resume() }
        }
    }

    /// Lets the held batch go.
    func release() {
        state.withLock { s -> CheckedContinuation<Void, Never>? in
            defer { s.heldCaller = nil }
            return s.heldCaller
        }?.resume()
    }
}
