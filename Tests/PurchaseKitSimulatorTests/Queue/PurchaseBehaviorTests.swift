import XCTest
import PurchaseKit
import PurchaseKitSimulator

final class PurchaseBehaviorTests: XCTestCase {
    func testProductRequestSeparatesValidProductsFromInvalidIdentifiers() async throws {
        let (store, _, _) = try await TestCatalog.makeStore()
        let response = try await store.products(for: [TestCatalog.coins, TestCatalog.monthly, "nope", "also.nope"])
        XCTAssertEqual(response.products.map(\.id), [TestCatalog.coins, TestCatalog.monthly])
        XCTAssertEqual(response.invalidProductIDs, ["also.nope", "nope"])
    }

    func testProductRequestCanFail() async throws {
        let (store, _, _) = try await TestCatalog.makeStore()
        await store.setProductRequestsFail(true)
        do {
            _ = try await store.products(for: [TestCatalog.coins])
            XCTFail("expected a failure")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .productRequestFailed)
        }
    }

    func testSuccessDeliversPurchasingThenPurchasedBeforeAddReturns() async throws {
        let (store, clock, observer) = try await TestCatalog.makeStore()
        try await store.add(TestCatalog.payment(TestCatalog.coins, quantity: 3))
        XCTAssertEqual(observer.kinds, [.purchasing, .purchased])
        let transaction = try XCTUnwrap(observer.updates.last?.transaction)
        XCTAssertEqual(transaction.productID, TestCatalog.coins)
        XCTAssertEqual(transaction.quantity, 3)
        XCTAssertEqual(transaction.orderToken, "order-1")
        XCTAssertEqual(transaction.purchaseDate, clock.now)
        XCTAssertEqual(transaction.environment, .sandbox)
        XCTAssertFalse(transaction.receipt.isEmpty)
        let unfinished = await store.unfinishedTransactions()
        XCTAssertEqual(unfinished.map(\.id), [transaction.id])
    }

    func testUserCancelAndFailuresChargeNothing() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        await store.setDefaultBehavior(.userCancel)
        try await store.add(TestCatalog.payment(TestCatalog.coins))
        XCTAssertEqual(observer.kinds, [.purchasing, .cancelled])
        for reason in [StoreFailureReason.paymentInvalid, .paymentNotAllowed, .networkError, .productNotAvailable] {
            observer.reset()
            await store.setDefaultBehavior(.fail(reason))
            try await store.add(TestCatalog.payment(TestCatalog.coins))
            XCTAssertEqual(observer.kinds, [.purchasing, .failed(reason)])
        }
        let transactions = await store.allTransactions()
        XCTAssertTrue(transactions.isEmpty)
    }

    func testUnknownProductAndBadQuantityFail() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        try await store.add(TestCatalog.payment("unknown.product"))
        XCTAssertEqual(observer.kinds.last, .failed(.productNotAvailable))
        try await store.add(TestCatalog.payment(TestCatalog.coins, quantity: 0))
        XCTAssertEqual(observer.kinds.last, .failed(.paymentInvalid))
    }

    func testPaymentsNotAllowedThrowsAndDeliversNothing() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        await store.setCanMakePayments(false)
        let allowed = await store.canMakePayments()
        XCTAssertFalse(allowed)
        do {
            try await store.add(TestCatalog.payment(TestCatalog.coins))
            XCTFail("expected paymentsNotAllowed")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .paymentsNotAllowed)
            XCTAssertFalse(error.description.contains("order-1"), "the order token must not leak")
        }
        XCTAssertTrue(observer.updates.isEmpty)
    }

    /// The store knows a payment's order token, not its order: the token is a
    /// secret, and an error that names it as the order id hands it to every
    /// caller that logs `error.orderID`.
    func testPaymentsNotAllowedErrorDoesNotCarryTheOrderToken() async throws {
        let (store, _, _) = try await TestCatalog.makeStore()
        await store.setCanMakePayments(false)
        let token = "3f1c9a2e-7b44-4d1a-9a55-secret-token"
        do {
            try await store.add(TestCatalog.payment(TestCatalog.coins, token: token))
            XCTFail("expected paymentsNotAllowed")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .paymentsNotAllowed)
            XCTAssertNotEqual(error.orderID, token, "the order token is not an order id, and must not leak")
            for text in [error.description, error.message, error.advice, String(reflecting: error), error.orderID ?? ""] {
                XCTAssertFalse(text.contains(token), "the order token leaked: \(text.replacingOccurrences(of: token, with: "<token>"))")
            }
        }
    }

    func testScriptWinsOverProductWhichWinsOverDefault() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        await store.setDefaultBehavior(.fail(.networkError))
        await store.setBehavior(.userCancel, for: TestCatalog.coins)
        await store.scriptNextPurchase(.success)
        await store.scriptNextPurchase(.fail(.paymentInvalid))
        for _ in 0..<3 { try await store.add(TestCatalog.payment(TestCatalog.coins)) }
        try await store.add(TestCatalog.payment(TestCatalog.pass))
        let outcomes = observer.kinds.filter { $0 != .purchasing }
        XCTAssertEqual(outcomes, [.purchased, .failed(.paymentInvalid), .cancelled, .failed(.networkError)])
    }

    func testConfigurationSettingsSetTheDefaultBehavior() async throws {
        let clock = ManualClock()
        let failing = SimulatedPaymentQueue(products: try TestCatalog.products,
                                            settings: .init(failTransactionsEnabled: true), clock: clock)
        let observer = RecordingObserver()
        await failing.attach(observer)
        try await failing.add(TestCatalog.payment(TestCatalog.coins))
        XCTAssertEqual(observer.kinds, [.purchasing, .failed(.unknown)])

        let asking = SimulatedPaymentQueue(products: try TestCatalog.products,
                                           settings: .init(askToBuyEnabled: true), clock: clock)
        await asking.attach(observer)
        try await asking.add(TestCatalog.payment(TestCatalog.coins))
        XCTAssertEqual(observer.kinds.last, .deferred)
    }

    func testBuyingAnOwnedNonConsumableAgainRedeliversTheSameTransaction() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore()
        try await store.add(TestCatalog.payment(TestCatalog.premium, token: "first"))
        try await store.add(TestCatalog.payment(TestCatalog.premium, token: "second"))
        let purchased = observer.updates.filter { $0.kind == .purchased }.compactMap(\.transaction)
        XCTAssertEqual(purchased.count, 2)
        XCTAssertEqual(purchased[0].id, purchased[1].id)
        let all = await store.allTransactions()
        XCTAssertEqual(all.count, 1)
    }

    func testLatencySleepsOnTheInjectedClock() async throws {
        let (store, clock, observer) = try await TestCatalog.makeStore()
        await store.setLatency(2)
        let start = clock.now
        let purchase = Task { try await store.add(TestCatalog.payment(TestCatalog.coins)) }
        await clock.waitForSleepers(count: 1)
        XCTAssertTrue(observer.updates.isEmpty, "nothing happens before the latency has passed")
        clock.advance(by: 2)
        try await purchase.value
        XCTAssertEqual(observer.kinds, [.purchasing, .purchased])
        XCTAssertEqual(observer.updates.last?.transaction?.purchaseDate, start.addingTimeInterval(2))
    }
}
