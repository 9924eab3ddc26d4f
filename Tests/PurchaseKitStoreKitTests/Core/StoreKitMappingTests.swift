import Foundation
import PurchaseKit
@testable import PurchaseKitStoreKit
import XCTest

/// The mapping from what StoreKit said to the library's model: pure, so it
/// runs wherever the package builds.
final class StoreKitMappingTests: XCTestCase {
    private let date = Date(timeIntervalSinceReferenceDate: 800_000_000)

    private func snapshot(id: UInt64 = 7, original: UInt64? = nil, token: UUID? = nil,
                          verification: TransactionSnapshot.Verification = .verified(jws: "a.b.c"),
                          revoked: Date? = nil, revocation: TransactionSnapshot.Revocation? = nil,
                          environment: TransactionSnapshot.Environment = .sandbox) -> TransactionSnapshot {
        TransactionSnapshot(id: id, originalID: original ?? id, productID: "p", productKind: .autoRenewable,
                            subscriptionGroupID: "g", purchaseDate: date, expirationDate: date.addingTimeInterval(30),
                            revocationDate: revoked, revocationReason: revocation, quantity: 1, appAccountToken: token,
                            isUpgraded: false, environment: environment, verification: verification)
    }

    func testOrderTokensTravelAsAppAccountTokensBothWays() throws {
        let token = "5f0c5d7e-9a3b-4c1d-8e2f-0123456789ab"
        let uuid = try XCTUnwrap(StoreKitMapping.appAccountToken(forOrderToken: token))
        XCTAssertEqual(StoreKitMapping.orderToken(from: uuid), token, "back in the engine's lowercase form")
        XCTAssertNil(StoreKitMapping.orderToken(from: nil))
        XCTAssertNil(StoreKitMapping.appAccountToken(forOrderToken: "order-1"))
    }

    func testATransactionBecomesAStoreTransaction() {
        let token = UUID()
        let transaction = StoreKitMapping.storeTransaction(snapshot(id: 9, original: 3, token: token, revoked: date,
                                                                    revocation: .developerIssue, environment: .xcode))
        XCTAssertEqual(transaction.id, "9")
        XCTAssertEqual(transaction.originalID, "3")
        XCTAssertEqual(transaction.productID, "p")
        XCTAssertEqual(transaction.purchaseDate, date)
        XCTAssertEqual(transaction.expirationDate, date.addingTimeInterval(30))
        XCTAssertEqual(transaction.revocationDate, date)
        XCTAssertEqual(transaction.revocationReason, .developerIssue)
        XCTAssertEqual(transaction.orderToken, token.uuidString.lowercased())
        XCTAssertEqual(transaction.environment, .xcode)
        XCTAssertEqual(AppStoreReceipt(transaction.receipt), .signedTransaction(jws: "a.b.c"))
        XCTAssertNil(StoreKitMapping.storeTransaction(snapshot()).orderToken)
        XCTAssertEqual(StoreKitMapping.storeTransaction(snapshot(environment: .unknown)).environment, .production)
    }

    func testTheReasonStoreKitGivesIsKeptAndNoReasonStaysNone() {
        var purchase = snapshot()
        purchase.reason = .purchase
        XCTAssertEqual(StoreKitMapping.storeTransaction(purchase).reason, .purchase)
        var renewal = snapshot(id: 8, original: 7)
        renewal.reason = .renewal
        XCTAssertEqual(StoreKitMapping.storeTransaction(renewal).reason, .renewal)
        XCTAssertNil(StoreKitMapping.storeTransaction(snapshot(id: 9, original: 7)).reason,
                     "unsaid (StoreKit before iOS 17 said PURCHASE): never guessed from the ids")
    }

    func testAnUnverifiedTransactionCarriesNoJWSAndIsNeverARevocation() {
        let unverified = snapshot(verification: .unverified(reason: "invalidSignature"), revoked: date, revocation: .other)
        let update = StoreKitMapping.update(for: unverified, storeInitiated: false, date: date)
        XCTAssertEqual(update.kind, .purchased)
        XCTAssertEqual(update.transaction.map { AppStoreReceipt($0.receipt) }, .unverified(reason: "invalidSignature"))
        XCTAssertEqual(update.transaction.map { String(decoding: $0.receipt, as: UTF8.self) }, "unverified:invalidSignature")

        let revoked = StoreKitMapping.update(for: snapshot(revoked: date, revocation: .other), storeInitiated: true, date: date)
        XCTAssertEqual(revoked.kind, .revoked)
        XCTAssertFalse(revoked.isStoreInitiated, "a revocation starts nothing")
    }

    func testAnUpdateCarriesTheTransactionsTokenAndTheStoreInitiatedMark() {
        let token = UUID()
        let update = StoreKitMapping.update(for: snapshot(token: token), storeInitiated: true, date: date)
        XCTAssertEqual(update.kind, .purchased)
        XCTAssertEqual(update.orderToken, token.uuidString.lowercased())
        XCTAssertTrue(update.isStoreInitiated)
        XCTAssertNil(update.paymentID, "StoreKit 2 keeps nothing to finish for an unpaid payment")
        XCTAssertEqual(update.date, date)
    }

    func testAPurchaseCallsAnswerIsReportedAgainstThePaymentsToken() {
        let payment = Payment(productID: "p", quantity: 2, orderToken: "5f0c5d7e-9a3b-4c1d-8e2f-0123456789ab", userID: "u")
        let other = UUID()
        let paid = StoreKitMapping.update(answering: payment, with: .purchased(TransactionEvent(snapshot: snapshot(token: other),
                                                                                                finish: {})), date: date)
        XCTAssertEqual(paid.kind, .purchased)
        XCTAssertEqual(paid.orderToken, payment.orderToken, "the payment's token, so an owned product is told apart")
        XCTAssertEqual(paid.transaction?.orderToken, other.uuidString.lowercased())
        XCTAssertEqual(StoreKitMapping.update(answering: payment, with: .pending, date: date).kind, .deferred)
        XCTAssertEqual(StoreKitMapping.update(answering: payment, with: .userCancelled, date: date).kind, .cancelled)
        let failed = StoreKitMapping.update(answering: payment, with: .failed(.networkError), date: date)
        XCTAssertEqual(failed.kind, .failed(.networkError))
        XCTAssertEqual(failed.orderToken, payment.orderToken)
        XCTAssertNil(failed.transaction)
        XCTAssertNil(failed.paymentID)
    }

    func testEveryStoreKitFailureHasAReason() {
        let expected: [StoreKitFailure: TransactionUpdate.Kind] = [
            .userCancelled: .cancelled,
            .networkError: .failed(.networkError),
            .notAvailableInStorefront: .failed(.productNotAvailable),
            .productUnavailable: .failed(.productNotAvailable),
            .notEntitled: .failed(.clientInvalid),
            .purchaseNotAllowed: .failed(.paymentNotAllowed),
            .invalidQuantity: .failed(.paymentInvalid),
            .invalidOffer: .failed(.invalidOffer),
            .ineligibleForOffer: .failed(.ineligibleForOffer),
            .unsupported: .failed(.paymentInvalid),
            .systemError: .failed(.unknown),
            .unknown: .failed(.unknown),
        ]
        for (failure, kind) in expected {
            XCTAssertEqual(StoreKitMapping.kind(for: failure), kind, "\(failure)")
        }
    }

    func testAProductIsMappedOrRefused() throws {
        let month = ProductSnapshot.Period(unit: .month, value: 1)
        var snapshot = ProductSnapshot(
            id: "plus", kind: .autoRenewable, displayName: "Plus", description: "More", price: Decimal(string: "2.99")!,
            displayPrice: "$2.99", currencyCode: "USD", isFamilyShareable: true,
            subscription: .init(groupID: "g", period: month, groupLevel: 1,
                                introductoryOffer: .init(paymentMode: .payAsYouGo, period: month, periodCount: 3, displayPrice: "$0.99")))
        let product = try XCTUnwrap(StoreKitMapping.product(snapshot))
        XCTAssertEqual(product.subscription?.period.iso8601, "P1M")
        XCTAssertEqual(product.subscription?.introductoryOffer,
                       IntroductoryOffer(paymentMode: .payAsYouGo, period: try SubscriptionPeriod(iso8601: "P1M"), periodCount: 3,
                                         displayPrice: "$0.99"))
        XCTAssertTrue(product.isFamilyShareable)

        snapshot.subscription?.introductoryOffer?.paymentMode = .unknown
        XCTAssertNil(try XCTUnwrap(StoreKitMapping.product(snapshot)).subscription?.introductoryOffer, "an offer it cannot hold is left out")
        snapshot.subscription?.period = .init(unit: .year, value: 11)
        XCTAssertNil(StoreKitMapping.product(snapshot), "no App Store product renews every eleven years")
        snapshot.subscription?.period = .init(unit: .unknown, value: 1)
        XCTAssertNil(StoreKitMapping.product(snapshot))
        snapshot.subscription = nil
        snapshot.kind = .unknown
        XCTAssertNil(StoreKitMapping.product(snapshot))
    }

    func testRenewalStatesGrantOnlyWhatStoreKitVerified() {
        let end = date.addingTimeInterval(86_400)
        func state(_ state: RenewalSnapshot.State, verified: Bool = true, info: RenewalSnapshot.RenewalInfo? = nil) -> SubscriptionRenewalState? {
            StoreKitMapping.renewalState(RenewalSnapshot(state: state, isTransactionVerified: verified, renewalInfo: info))
        }
        XCTAssertEqual(state(.subscribed, info: .init(willAutoRenew: true)), .active(willRenew: true))
        XCTAssertEqual(state(.subscribed), .active(willRenew: false))
        XCTAssertEqual(state(.inGracePeriod, info: .init(willAutoRenew: true, gracePeriodExpirationDate: end)), .inGracePeriod(until: end))
        XCTAssertEqual(state(.inGracePeriod), .inBillingRetry, "no verified end, no access")
        XCTAssertEqual(state(.inBillingRetryPeriod), .inBillingRetry)
        XCTAssertEqual(state(.expired), .expired)
        XCTAssertEqual(state(.revoked), .expired)
        XCTAssertNil(state(.unknown))
        XCTAssertNil(state(.subscribed, verified: false, info: .init(willAutoRenew: true)))
    }
}
