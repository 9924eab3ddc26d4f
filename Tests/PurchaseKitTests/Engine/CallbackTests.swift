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

    func testPurchaseCallsBackOnTheMainActor() async throws {
        let world = World()
        let engine = try await world.engine()
        let called = expectation(description: "purchase completion")
        let outcome = Locked<Result<PurchaseResult, PurchaseKitError>?>(nil)
        engine.purchase(productID: Catalog.coins, user: "alice") { result in
            Self.assertOnMain()
            outcome.withLock { $0 = result }
            called.fulfill()
        }
        await fulfillment(of: [called], timeout: 60)
        let result = try XCTUnwrap(outcome.withLock { $0 }).get()
        guard case .success(let order) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(order.status, .completed)
    }

    func testAFailedPurchaseCallsBackWithItsTypedError() async throws {
        let world = World()
        let engine = try await world.engine()
        await world.store.setCanMakePayments(false)
        let called = expectation(description: "purchase completion")
        let outcome = Locked<Result<PurchaseResult, PurchaseKitError>?>(nil)
        engine.purchase(productID: Catalog.coins, user: "alice") { result in
            Self.assertOnMain()
            outcome.withLock { $0 = result }
            called.fulfill()
        }
        await fulfillment(of: [called], timeout: 60)
        guard case .failure(let error)? = outcome.withLock({ $0 }) else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, .paymentsNotAllowed)
    }

    func testRestoreCallsBackOnTheMainActor() async throws {
        let world = World()
        let firstDevice = try await world.engine()
        _ = try await firstDevice.purchase(productID: Catalog.pro, user: "alice")
        let engine = try await world.engine(world.configuration(store: InMemoryOrderStore()))
        let called = expectation(description: "restore completion")
        let outcome = Locked<Result<RestoreResult, PurchaseKitError>?>(nil)
        engine.restorePurchases(user: "alice") { result in
            Self.assertOnMain()
            outcome.withLock { $0 = result }
            called.fulfill()
        }
        await fulfillment(of: [called], timeout: 60)
        XCTAssertEqual(try XCTUnwrap(outcome.withLock { $0 }).get().restoredProductIDs, [Catalog.pro])

        // A failed restore arrives as restoreFailed, on the main actor too.
        await world.store.setRestoreBehavior(.fails)
        let failed = expectation(description: "failed restore completion")
        engine.restorePurchases(user: "alice") { result in
            Self.assertOnMain()
            outcome.withLock { $0 = result }
            failed.fulfill()
        }
        await fulfillment(of: [failed], timeout: 60)
        guard case .failure(let error)? = outcome.withLock({ $0 }) else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, .restoreFailed)
    }

    func testProductsCallBackOnTheMainActor() async throws {
        let world = World()
        let engine = try await world.engine()
        let called = expectation(description: "products completion")
        let outcome = Locked<Result<ProductList, PurchaseKitError>?>(nil)
        engine.products(for: [Catalog.pro, "com.example.typo"]) { result in
            Self.assertOnMain()
            outcome.withLock { $0 = result }
            called.fulfill()
        }
        await fulfillment(of: [called], timeout: 60)
        let list = try XCTUnwrap(outcome.withLock { $0 }).get()
        XCTAssertEqual(list.products.map(\.id), [Catalog.pro])
        XCTAssertEqual(list.invalidProductIDs, ["com.example.typo"])

        await world.store.setProductRequestsFail(true)
        let failed = expectation(description: "failed products completion")
        engine.products(for: [Catalog.season]) { result in
            Self.assertOnMain()
            outcome.withLock { $0 = result }
            failed.fulfill()
        }
        await fulfillment(of: [failed], timeout: 60)
        guard case .failure(let error)? = outcome.withLock({ $0 }) else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, .productRequestFailed)
    }
}
