import Dispatch
import Foundation
import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// The completion-handler variants call back once, on the main actor, with
/// the async call's result.
final class CallbackTests: XCTestCase {
    /// Checks, at run time, that the code runs on the main thread's queue.
    @MainActor private static func assertOnMain() {
        MainActor.assertIsolated("a completion handler ran off the main actor")
        dispatchPrecondition(condition: .onQueue(.main))
        XCTAssertTrue(Thread.isMainThread)
    }

    /// Makes one completion-handler call and waits for its callback, which
    /// must come once, on the main actor; returns what it was handed.
    private func callingBack<T: Sendable>(
        _ description: String,
        _ start: (@escaping @MainActor @Sendable (Result<T, PurchaseKitError>) -> Void) -> Void
    ) async throws -> Result<T, PurchaseKitError> {
        let called = expectation(description: description)
        let outcome = Locked<Result<T, PurchaseKitError>?>(nil)
        start { result in
            Self.assertOnMain()
            outcome.withLock { $0 = result }
            called.fulfill()
        }
        await fulfillment(of: [called], timeout: 60)
        return try XCTUnwrap(outcome.withLock { $0 })
    }

    func testPurchaseCallsBackOnTheMainActor() async throws {
        let world = World()
        let engine = try await world.engine()
        let result = try await callingBack("purchase completion") {
            engine.purchase(productID: Catalog.coins, user: "alice", completion: $0)
        }.get()
        guard case .success(let order) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(order.status, .completed)
    }

    func testAFailedPurchaseCallsBackWithItsTypedError() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.setCanMakePayments(false)
        let outcome = try await callingBack("purchase completion") {
            engine.purchase(productID: Catalog.coins, user: "alice", completion: $0)
        }
        guard case .failure(let error) = outcome else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, .paymentsNotAllowed)
    }

    func testRestoreCallsBackOnTheMainActor() async throws {
        let world = World()
        let firstDevice = try await world.engine()
        _ = try await firstDevice.purchase(productID: Catalog.pro, user: "alice")
        let engine = try await world.engine(world.configuration(store: InMemoryOrderStore()))
        let restored = try await callingBack("restore completion") { engine.restorePurchases(user: "alice", completion: $0) }
        XCTAssertEqual(try restored.get().restoredProductIDs, [Catalog.pro])

        // A failed restore arrives as restoreFailed, on the main actor too.
        await world.store.setRestoreBehavior(.fails)
        let failed = try await callingBack("failed restore completion") { engine.restorePurchases(user: "alice", completion: $0) }
        guard case .failure(let error) = failed else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, .restoreFailed)
    }

    func testProductsCallBackOnTheMainActor() async throws {
        let world = World()
        let engine = try await world.engine()
        let list = try await callingBack("products completion") {
            engine.products(for: [Catalog.pro, "com.example.typo"], completion: $0)
        }.get()
        XCTAssertEqual(list.products.map(\.id), [Catalog.pro])
        XCTAssertEqual(list.invalidProductIDs, ["com.example.typo"])

        await world.store.setProductRequestsFail(true)
        let failed = try await callingBack("failed products completion") { engine.products(for: [Catalog.season], completion: $0) }
        guard case .failure(let error) = failed else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, .productRequestFailed)
    }
}
