import XCTest
import PurchaseKit
import PurchaseKitSimulator

final class SubscriptionTests: XCTestCase {
    /// A day per clock second, as Xcode's "one second is one day".
    private let fast = StoreKitConfiguration.Settings(timeRate: .init(xcodeRawValue: 6))

    func testAYearOfMonthlyRenewalsKeepsTheOriginalIDAndOrderToken() async throws {
        let (store, clock, observer) = try await TestCatalog.makeStore(settings: fast)
        try await store.add(TestCatalog.payment(TestCatalog.monthly, token: "order-sub"))
        let first = try XCTUnwrap(observer.updates.last?.transaction)
        let firstExpiration = try XCTUnwrap(first.expirationDate)
        XCTAssertEqual(firstExpiration.timeIntervalSince(first.purchaseDate), 31, accuracy: 0.001,
                       "January has 31 days: 31 clock seconds at one second per day")
        observer.reset()

        clock.advance(by: 366)
        await store.processRenewals()
        let renewals = observer.updates.compactMap(\.transaction)
        XCTAssertEqual(renewals.count, 12)
        XCTAssertTrue(observer.kinds.allSatisfy { $0 == .purchased })
        XCTAssertTrue(renewals.allSatisfy { $0.originalID == first.id && $0.orderToken == "order-sub" })
        XCTAssertEqual(Set(renewals.map(\.id)).count, 12)
        XCTAssertFalse(renewals.contains { $0.id == first.id })
        XCTAssertEqual(renewals.first?.purchaseDate, firstExpiration)
        for (previous, next) in zip(renewals, renewals.dropFirst()) {
            XCTAssertEqual(previous.expirationDate, next.purchaseDate)
        }
        let status = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.monthly))
        XCTAssertEqual(status.state, .subscribed)
        XCTAssertEqual(status.latestTransactionID, renewals.last?.id)

        observer.reset()
        await store.processRenewals()
        XCTAssertTrue(observer.updates.isEmpty, "no renewal twice for the same period")
    }

    func testIntroductoryOfferShortensTheFirstPeriodOnce() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore(settings: fast)
        try await store.add(TestCatalog.payment(TestCatalog.weekly))
        let trial = try XCTUnwrap(observer.updates.last?.transaction)
        XCTAssertEqual(try XCTUnwrap(trial.expirationDate).timeIntervalSince(trial.purchaseDate), 3, accuracy: 0.001)
    }

    func testCancelledSubscriptionExpiresAtTheEndOfThePeriod() async throws {
        let (store, clock, observer) = try await TestCatalog.makeStore(settings: fast)
        try await store.add(TestCatalog.payment(TestCatalog.monthly))
        try await store.cancelSubscription(productID: TestCatalog.monthly)
        var status = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.monthly))
        XCTAssertEqual(status.state, .subscribed)
        XCTAssertFalse(status.willAutoRenew)
        observer.reset()
        clock.advance(by: 40)
        status = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.monthly))
        XCTAssertEqual(status.state, .expired)
        XCTAssertTrue(observer.updates.isEmpty, "a cancelled subscription does not renew")
        let restored = try await store.restoreCompletedTransactions()
        XCTAssertTrue(restored.isEmpty, "an expired subscription is not restored")
    }

    func testBillingRetryThenExpiry() async throws {
        let (store, clock, observer) = try await TestCatalog.makeStore(settings: fast)
        try await store.add(TestCatalog.payment(TestCatalog.monthly))
        await store.simulateBillingIssue(productID: TestCatalog.monthly)
        observer.reset()
        clock.advance(by: 32)
        var status = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.monthly))
        XCTAssertEqual(status.state, .inBillingRetryPeriod)
        XCTAssertFalse(status.state.grantsAccess)
        XCTAssertEqual(status.retryEndsAt, status.expirationDate.addingTimeInterval(60))
        clock.advance(by: 60)
        status = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.monthly))
        XCTAssertEqual(status.state, .expired)
        XCTAssertTrue(observer.updates.isEmpty)
    }

    func testGracePeriodKeepsAccessAndRecoveryRenews() async throws {
        var settings = fast
        settings.billingGracePeriodEnabled = true
        let (store, clock, observer) = try await TestCatalog.makeStore(settings: settings)
        try await store.add(TestCatalog.payment(TestCatalog.monthly, token: "order-g"))
        let original = try XCTUnwrap(observer.updates.last?.transaction)
        await store.simulateBillingIssue(productID: TestCatalog.monthly)
        clock.advance(by: 33)
        var status = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.monthly))
        XCTAssertEqual(status.state, .inGracePeriod)
        XCTAssertTrue(status.state.grantsAccess)
        XCTAssertEqual(status.retryEndsAt, status.expirationDate.addingTimeInterval(16))
        let restored = try await store.restoreCompletedTransactions()
        XCTAssertEqual(restored.map(\.id), [original.id], "access continues in the grace period")

        observer.reset()
        await store.resolveBillingIssue(productID: TestCatalog.monthly)
        XCTAssertEqual(observer.kinds, [.purchased])
        let renewal = try XCTUnwrap(observer.updates.first?.transaction)
        XCTAssertEqual(renewal.originalID, original.id)
        XCTAssertEqual(renewal.orderToken, "order-g")
        status = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.monthly))
        XCTAssertEqual(status.state, .subscribed)
        XCTAssertEqual(status.expirationDate, renewal.expirationDate)
    }

    func testGracePeriodRunsIntoBillingRetry() async throws {
        var settings = fast
        settings.billingGracePeriodEnabled = true
        let (store, clock, _) = try await TestCatalog.makeStore(settings: settings)
        try await store.add(TestCatalog.payment(TestCatalog.monthly))
        await store.simulateBillingIssue(productID: TestCatalog.monthly)
        clock.advance(by: 31 + 17)
        let status = try unwrapped(await store.subscriptionStatus(productID: TestCatalog.monthly))
        XCTAssertEqual(status.state, .inBillingRetryPeriod)
    }

    func testCancellingAnUnknownSubscriptionThrows() async throws {
        let (store, _, _) = try await TestCatalog.makeStore()
        do {
            try await store.cancelSubscription(productID: TestCatalog.monthly)
            XCTFail("expected orderNotFound")
        } catch {
            XCTAssertEqual(error.code, .orderNotFound)
        }
    }
}
