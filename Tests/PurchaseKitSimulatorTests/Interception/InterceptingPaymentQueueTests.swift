import XCTest
import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// A store that implements every requirement, those with a default too,
/// answers each with a value of its own and notes which ones it reached.
final class ScriptedQueue: PaymentQueue {
    static let product = StoreProduct(id: "p", type: .consumable, displayName: "P", price: 1)
    static let transaction = StoreTransaction(id: "t1", productID: "p", purchaseDate: Date(timeIntervalSince1970: 0))
    private let log = Locked<[String]>([])
    private let observer = Locked<(any PaymentQueueObserver)?>(nil)
    var reached: [String] { log.withLock { $0 } }
    var attached: (any PaymentQueueObserver)? { observer.withLock { $0 } }
    private func note(_ name: String) { log.withLock { $0.append(name) } }

    func products(for identifiers: Set<String>) async throws -> ProductsResponse {
        note("products")
        return ProductsResponse(products: [Self.product], invalidProductIDs: ["x"])
    }
    func canMakePayments() async -> Bool { note("canMakePayments"); return true }
    func add(_ payment: Payment) async throws { note("add") }
    func finish(transactionID: String) async throws { note("finish") }
    func restoreCompletedTransactions() async throws -> [StoreTransaction] { note("restoreCompletedTransactions"); return [Self.transaction] }
    func attach(_ observer: any PaymentQueueObserver) async {
        note("attach")
        self.observer.withLock { $0 = observer }
    }
    func revokedTransactions() async throws -> [StoreTransaction] { note("revokedTransactions"); return [Self.transaction] }
    func renewalState(forOriginalTransactionID originalTransactionID: String) async -> SubscriptionRenewalState? {
        note("renewalState")
        return .inBillingRetry
    }
    func requestRefund(transactionID: String) async throws -> RefundRequestStatus { note("requestRefund"); return .submitted }
    func isEligibleForIntroOffer(groupID: String) async -> Bool? { note("isEligibleForIntroOffer"); return false }
}

final class InterceptingPaymentQueueTests: XCTestCase {
    struct Offline: Error {}
    private let payment = Payment(productID: "p", orderToken: "k1", userID: "u")

    /// Makes every call once, in the order of `Call.Name.allCases`, and returns the answers.
    private func callEveryRequirement(of queue: any PaymentQueue) async throws -> [String] {
        var answers: [String] = []
        answers.append("\(try await queue.products(for: ["p", "x"]).invalidProductIDs)")
        answers.append("\(await queue.canMakePayments())")
        try await queue.add(payment)
        try await queue.finish(transactionID: "t1")
        answers.append("\(try await queue.restoreCompletedTransactions().map(\.id))")
        await queue.attach(RecordingObserver())
        answers.append("\(try await queue.revokedTransactions().map(\.id))")
        answers.append("\(String(describing: await queue.renewalState(forOriginalTransactionID: "t1")))")
        answers.append("\(try await queue.requestRefund(transactionID: "t1"))")
        answers.append("\(String(describing: await queue.isEligibleForIntroOffer(groupID: "g")))")
        return answers
    }

    func testEveryRequirementIsForwardedAndRecordedInOrder() async throws {
        let base = ScriptedQueue()
        let queue = InterceptingPaymentQueue(wrapping: base)
        let answers = try await callEveryRequirement(of: queue)
        let direct = try await callEveryRequirement(of: ScriptedQueue())
        XCTAssertEqual(answers, direct, "the wrapped store's own answers, defaulted requirements included")
        let names = InterceptingPaymentQueue.Call.Name.allCases.map(\.rawValue)
        XCTAssertEqual(base.reached, names)
        XCTAssertEqual(queue.calls.map(\.name.rawValue), names)
        XCTAssertEqual(queue.calls(.add), [.add(payment)])
        XCTAssertEqual(queue.calls(.products), [.products(["p", "x"])])
        XCTAssertNotNil(base.attached)
    }

    func testAFailedCallThrowsAndDoesNotReachTheWrappedStore() async throws {
        let base = ScriptedQueue()
        let queue = InterceptingPaymentQueue(wrapping: base) { call in
            call.name == .restoreCompletedTransactions ? .fail(Offline()) : .proceed
        }
        do {
            _ = try await queue.restoreCompletedTransactions()
            XCTFail("the restore went through")
        } catch {
            XCTAssertTrue(error is Offline, "\(error)")
        }
        try await queue.finish(transactionID: "t1")
        XCTAssertEqual(base.reached, ["finish"])
    }

    func testCallsThatCannotThrowAnswerAsAStoreOutOfReach() async throws {
        let base = ScriptedQueue()
        let queue = InterceptingPaymentQueue(wrapping: base) { _ in throw Offline() }
        let canPay = await queue.canMakePayments()
        XCTAssertFalse(canPay)
        await queue.attach(RecordingObserver())
        XCTAssertNil(base.attached)
        let renewal = await queue.renewalState(forOriginalTransactionID: "t1")
        XCTAssertNil(renewal)
        let eligible = await queue.isEligibleForIntroOffer(groupID: "g")
        XCTAssertNil(eligible)
        XCTAssertEqual(base.reached, [])
        XCTAssertEqual(queue.calls.count, 4)
    }

    func testAnAnswerReplacesTheWrappedStore() async throws {
        let base = ScriptedQueue()
        let queue = InterceptingPaymentQueue(wrapping: base) { call in
            switch call {
            case .renewalState: return .answer(.renewalState(.active(willRenew: false)))
            case .requestRefund: return .answer(.refund(.userCancelled))
            case .add: return .answer(.done)
            default: return .proceed
            }
        }
        let renewal = await queue.renewalState(forOriginalTransactionID: "t1")
        XCTAssertEqual(renewal, .active(willRenew: false))
        let refund = try await queue.requestRefund(transactionID: "t1")
        XCTAssertEqual(refund, .userCancelled)
        try await queue.add(payment)
        XCTAssertEqual(base.reached, [])
    }

    func testProceedThenRunsAfterTheWrappedStoreAnswered() async throws {
        let base = ScriptedQueue()
        let reachedFirst = Locked(false)
        let queue = InterceptingPaymentQueue(wrapping: base) { call in
            guard case .finish = call else { return .proceed }
            return .proceedThen { outcome in
                reachedFirst.withLock { $0 = base.reached == ["finish"] }
                if case .success = outcome { throw Offline() }
            }
        }
        do {
            try await queue.finish(transactionID: "t1")
            XCTFail("the lost reply was not reported")
        } catch {
            XCTAssertTrue(error is Offline, "\(error)")
        }
        XCTAssertTrue(reachedFirst.withLock { $0 })
    }

    func testWrapsTheSimulatedStore() async throws {
        let (store, _, observer) = try await TestCatalog.makeStore(settings: TestCatalog.Tiers.fast)
        let queue = InterceptingPaymentQueue(wrapping: store)
        try await queue.add(TestCatalog.payment(TestCatalog.premium))
        let transaction = try XCTUnwrap(observer.updates.last?.transaction)
        try await queue.finish(transactionID: transaction.id)
        let unfinished = await store.unfinishedTransactions()
        XCTAssertTrue(unfinished.isEmpty)
        XCTAssertEqual(queue.calls.map(\.name), [.add, .finish])
    }
}
