#if !canImport(StoreKit)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
@testable import PurchaseKitStoreKit
import StoreKitInterface
import XCTest

/// Purchases through the adapter: what StoreKit's purchase call answers
/// becomes the order's outcome, and the transaction is finished only once delivered.
final class AppStorePurchaseTests: XCTestCase {
    override func tearDown() {
        ScriptedAppStore.uninstall()
        super.tearDown()
    }

    func testAPaidPurchaseCarriesTheOrderTokenIsDeliveredWithItsJWSThenFinished() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch()

        guard case .success(let order) = try await engine.purchase(productID: Shop.premium, user: "alice") else {
            return XCTFail("the purchase did not succeed")
        }
        XCTAssertEqual(order.status, .completed)
        let call = try XCTUnwrap(world.store.purchaseCalls.first)
        XCTAssertEqual(call.appAccountToken?.uuidString.lowercased(), order.token, "the order token travels as appAccountToken")
        XCTAssertNil(call.quantity, "a quantity of one is StoreKit's default and is not sent")
        let id = try world.transactionID(of: order)
        XCTAssertEqual(order.transaction?.orderToken, order.token, "the transaction brings the token back")
        XCTAssertTrue(world.store.isFinished(id))
        XCTAssertEqual(world.store.finishCalls(id), 1)
        let requests = await world.server.requests
        XCTAssertEqual(requests.count, 1)
        XCTAssertEqual(requests.first.map { String(decoding: $0.transaction.receipt, as: UTF8.self) }, world.store.jws(of: id),
                       "the server receives the JWS exactly as the App Store signed it")
        let credits = await world.server.credits
        XCTAssertEqual(credits, [String(id): "alice"])
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Shop.premium])
    }

    func testAQuantityTravelsToStoreKitAndIsCredited() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch()

        _ = try await engine.purchase(productID: Shop.coins, user: "alice", quantity: 3)

        XCTAssertEqual(world.store.purchaseCalls.first?.quantity, 3)
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Shop.coins: 3])
    }

    func testAPendingPurchaseGrantsNothingUntilApprovedThenIsDeliveredWithoutACaller() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch()
        world.store.scriptNextPurchases(.pending)

        guard case .pending(let order, .awaitingApproval) = try await engine.purchase(productID: Shop.premium, user: "alice") else {
            return XCTFail("the purchase is not pending approval")
        }
        XCTAssertEqual(order.status, .deferred)
        var entitlements = try await engine.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty, "a pending purchase grants nothing")

        let approved = await world.store.approvePendingPurchase()
        await engine.waitUntilIdle()

        let delivered = try await world.order(order.id)
        XCTAssertEqual(delivered.status, .completed)
        XCTAssertEqual(delivered.transaction?.id, approved.map(String.init))
        XCTAssertTrue(world.store.isFinished(try XCTUnwrap(approved)))
        entitlements = try await engine.entitlements(user: "alice")
        XCTAssertEqual(entitlements.map(\.productID), [Shop.premium])
    }

    func testACancelledPurchaseChargesNothingAndLeavesNothingToFinish() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch()
        world.store.scriptNextPurchases(.userCancels, .fails(StoreKitError.userCancelled))

        for _ in 0..<2 {
            guard case .userCancelled(let order) = try await engine.purchase(productID: Shop.coins, user: "alice") else {
                return XCTFail("the purchase was not cancelled")
            }
            XCTAssertEqual(order.status, .cancelled)
        }
        XCTAssertTrue(world.store.transactions.isEmpty)
        let requests = await world.server.requests
        XCTAssertTrue(requests.isEmpty)
    }

    func testStoreKitErrorsBecomeTheLibrarysFailureReasons() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch()
        let cases: [(any Error & Sendable, StoreFailureReason)] = [
            (StoreKitError.networkError(URLError(.notConnectedToInternet)), .networkError),
            (StoreKitError.notAvailableInStorefront, .productNotAvailable),
            (StoreKitError.notEntitled, .clientInvalid),
            (StoreKitError.unknown, .unknown),
            (Product.PurchaseError.purchaseNotAllowed, .paymentNotAllowed),
            (Product.PurchaseError.productUnavailable, .productNotAvailable),
            (Product.PurchaseError.invalidOfferSignature, .invalidOffer),
            (Product.PurchaseError.ineligibleForOffer, .ineligibleForOffer),
            (CocoaError(.featureUnsupported), .unknown),
        ]
        for (error, reason) in cases {
            world.store.scriptNextPurchases(.fails(error))
            do {
                _ = try await engine.purchase(productID: Shop.coins, user: "alice")
                XCTFail("\(error) did not fail the purchase")
            } catch let failure as PurchaseKitError {
                XCTAssertEqual(failure.code, .paymentFailed, "\(error)")
                XCTAssertEqual(failure.storeReason, reason, "\(error)")
            }
        }
        XCTAssertTrue(world.store.transactions.isEmpty)
    }

    func testAnUnverifiedTransactionNeverReachesTheServerAsPaidAndIsRejected() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch()
        world.store.scriptNextPurchases(.payUnverified(.invalidDeviceVerification))

        do {
            _ = try await engine.purchase(productID: Shop.premium, user: "alice")
            XCTFail("an unverified purchase was answered as a success")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .verificationRejected)
        }
        let orders = await world.orders(of: "alice")
        let order = try XCTUnwrap(orders.first)
        XCTAssertEqual(order.status, .rejected)
        XCTAssertEqual(order.transaction.map { AppStoreReceipt($0.receipt) }, .unverified(reason: "invalidDeviceVerification"))
        let id = try world.transactionID(of: order)
        let receipt = String(decoding: try XCTUnwrap(order.transaction?.receipt), as: UTF8.self)
        XCTAssertFalse(receipt.contains(try XCTUnwrap(world.store.jws(of: id))), "no JWS travels for an unverified transaction")
        let requests = await world.server.requests
        XCTAssertTrue(requests.isEmpty, "the server is never asked to credit it")
        XCTAssertTrue(world.store.isFinished(id), "rejected, so finished: it is not replayed at every launch")
        let entitlements = try await engine.entitlements(user: "alice")
        XCTAssertTrue(entitlements.isEmpty)
    }

    /// StoreKit's interface on `revokedCertificate`: "Trying again later may
    /// retrieve valid signed data from the App Store." The user paid; a
    /// rejection would finish the transaction and lose the payment.
    func testAPaymentStoreKitCannotVerifyForNowIsKeptUnfinishedAndDeliveredOnceItVerifies() async throws {
        let world = AppStoreWorld()
        var orderID = ""
        do {
            let (engine, _) = try await world.launch(storeTimeout: 60)
            world.store.scriptNextPurchases(.sheetStaysOpen)
            let call = Task { try await engine.purchase(productID: Shop.coins, user: "alice") }
            await world.store.waitForPurchaseCalls(1)
            await world.store.closeSheet(with: .payUnverified(.revokedCertificate))
            world.advance(by: 61)
            do {
                guard case .pending(let order, .storeTimeout) = try await call.value else {
                    return XCTFail("the purchase was not left waiting for the store")
                }
                orderID = order.id
            } catch {
                XCTFail("the purchase failed: \(error)")
            }
            await engine.waitUntilIdle()
        }
        let charged = try XCTUnwrap(world.store.transactions.first)
        XCTAssertFalse(world.store.isFinished(charged.id), "paid and not yet verifiable: StoreKit must keep it")
        var requests = await world.server.requests
        XCTAssertTrue(requests.isEmpty, "nothing unverified reaches the server")

        world.store.setVerificationFailure(of: charged.id, to: nil)
        let (engine, _) = try await world.launch()

        let order = try await world.order(orderID)
        XCTAssertEqual(order.status, .completed, "matched to its order by the token it carried")
        XCTAssertEqual(order.transaction?.id, String(charged.id))
        XCTAssertTrue(world.store.isFinished(charged.id))
        requests = await world.server.requests
        XCTAssertEqual(requests.count, 1)
        let credits = await world.server.credits
        XCTAssertEqual(credits, [String(charged.id): "alice"])
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, [Shop.coins: 1])
    }

    func testAPurchaseSheetLeftOpenDoesNotHoldTheEngineAndItsPaymentIsStillDelivered() async throws {
        let world = AppStoreWorld()
        let (engine, _) = try await world.launch(storeTimeout: 60)
        world.store.scriptNextPurchases(.sheetStaysOpen)

        let call = Task { try await engine.purchase(productID: Shop.coins, user: "alice") }
        await world.store.waitForPurchaseCalls(1)
        XCTAssertEqual(world.store.openSheetCount, 1)
        // The payment was handed over: nothing of the engine waits for the sheet.
        await returnsPromptly("the engine's work, with the sheet open") { await engine.waitUntilIdle() }

        world.advance(by: 61)
        guard case .pending(let order, .storeTimeout) = try await call.value else {
            return XCTFail("the call did not return at the store timeout")
        }
        XCTAssertEqual(order.status, .purchasing)

        let events = await engine.events()
        await world.store.closeSheet(with: .pay)
        await returnsPromptly("the delivery after the sheet closed") {
            for await event in events {
                if case .orderChanged(let changed, _) = event, changed.id == order.id, changed.status == .completed { return }
            }
        }
        let delivered = try await world.order(order.id)
        XCTAssertEqual(delivered.status, .completed)
        let credits = await world.server.credits
        XCTAssertEqual(credits.count, 1)
    }

    func testADeviceThatMayNotPayIsToldSoAndNothingReachesStoreKit() async throws {
        let world = AppStoreWorld()
        world.store.setCanMakePayments(false)
        let (engine, _) = try await world.launch()

        do {
            _ = try await engine.purchase(productID: Shop.coins, user: "alice")
            XCTFail("the purchase went ahead")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .paymentsNotAllowed)
        }
        XCTAssertTrue(world.store.purchaseCalls.isEmpty)
    }

    func testAnOrderTokenThatIsNotAUUIDIsRefusedBeforeStoreKitSeesIt() async throws {
        let world = AppStoreWorld()
        let queue = AppStorePaymentQueue(configuration: .init(clock: world.clock))

        do {
            try await queue.add(Payment(productID: Shop.coins, orderToken: "order-1", userID: "alice"))
            XCTFail("the payment was taken")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .invalidConfiguration)
        }
        XCTAssertTrue(world.store.purchaseCalls.isEmpty)
    }
}
#endif
