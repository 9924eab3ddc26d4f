#if !canImport(StoreKit)
import Foundation
import PurchaseKit
import PurchaseKitSimulator
@testable import PurchaseKitStoreKit
import StoreKitInterface
import XCTest

/// Products come from `Product.products(for:)`, in the library's model.
final class AppStoreProductTests: XCTestCase {
    override func tearDown() {
        ScriptedAppStore.uninstall()
        super.tearDown()
    }

    func testProductsAreMappedAndUnknownIdentifiersAreInvalid() async throws {
        let world = AppStoreWorld()
        let queue = AppStorePaymentQueue(configuration: .init(clock: world.clock))

        let response = try await queue.products(for: [Shop.coins, Shop.premium, Shop.monthly, Shop.season, "com.example.gone"])

        XCTAssertEqual(response.invalidProductIDs, ["com.example.gone"])
        let products = Dictionary(uniqueKeysWithValues: response.products.map { ($0.id, $0) })
        let coins = try XCTUnwrap(products[Shop.coins])
        XCTAssertEqual(coins.type, .consumable)
        XCTAssertEqual(coins.displayName, "100 coins")
        XCTAssertEqual(coins.description, "A pile of coins")
        XCTAssertEqual(coins.price, Decimal(string: "0.99"))
        XCTAssertEqual(coins.displayPrice, "0,99 €")
        XCTAssertEqual(coins.currencyCode, "EUR")
        XCTAssertNil(coins.subscription)
        XCTAssertEqual(products[Shop.premium]?.type, .nonConsumable)
        XCTAssertEqual(products[Shop.premium]?.isFamilyShareable, true)
        XCTAssertEqual(products[Shop.season]?.type, .nonRenewable)
        let monthly = try XCTUnwrap(products[Shop.monthly]?.subscription)
        XCTAssertEqual(products[Shop.monthly]?.type, .autoRenewable)
        XCTAssertEqual(monthly.groupID, Shop.group)
        XCTAssertEqual(monthly.period.iso8601, "P1M")
        XCTAssertEqual(monthly.groupLevel, 2)
        XCTAssertEqual(monthly.introductoryOffer?.paymentMode, .freeTrial)
        XCTAssertEqual(monthly.introductoryOffer?.period.iso8601, "P1W")
        XCTAssertEqual(monthly.introductoryOffer?.displayPrice, "Free")
    }

    func testAProductTheLibraryCannotHoldIsReportedInvalidNotGuessed() async throws {
        let world = AppStoreWorld()
        world.store.addProduct("com.example.broken", type: .autoRenewable, displayName: "Broken", price: 1, displayPrice: "$1",
                               subscription: ScriptedSubscription(groupID: "g", unit: .month, value: 0))
        world.store.addProduct("com.example.future", type: Product.ProductType(rawValue: "Something New"),
                               displayName: "Future", price: 1, displayPrice: "$1")
        let queue = AppStorePaymentQueue(configuration: .init(clock: world.clock))

        let response = try await queue.products(for: ["com.example.broken", "com.example.future", Shop.coins])

        XCTAssertEqual(response.products.map(\.id), [Shop.coins])
        XCTAssertEqual(response.invalidProductIDs, ["com.example.broken", "com.example.future"])
    }

    func testAFailedProductRequestIsATypedErrorAndAPurchaseOfAnUnknownProductChargesNothing() async throws {
        let world = AppStoreWorld()
        let (engine, queue) = try await world.launch()

        do {
            _ = try await engine.purchase(productID: "com.example.gone", user: "alice")
            XCTFail("an unknown product was bought")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .invalidProductIdentifiers)
            XCTAssertEqual(error.productIDs, ["com.example.gone"])
        }
        world.store.failProductRequests(with: StoreKitError.notEntitled)
        do {
            _ = try await queue.products(for: [Shop.coins])
            XCTFail("the request did not fail")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .productRequestFailed)
            XCTAssertTrue(error.underlying is StoreKitError)
        }
        XCTAssertTrue(world.store.purchaseCalls.isEmpty)
    }

    func testWithoutAnAppStoreEveryCallFailsOrIsEmptyAndNothingHangs() async throws {
        let world = AppStoreWorld()
        ScriptedAppStore.uninstall()
        let queue = AppStorePaymentQueue(configuration: .init(clock: world.clock))
        let observer = RecordingObserver()

        await queue.attach(observer)
        let canPay = await queue.canMakePayments()
        XCTAssertFalse(canPay)
        XCTAssertTrue(observer.updates.isEmpty)
        do {
            _ = try await queue.products(for: [Shop.coins])
            XCTFail("products loaded without an App Store")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .productRequestFailed)
        }
        do {
            _ = try await queue.restoreCompletedTransactions()
            XCTFail("a restore worked without an App Store")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .restoreFailed)
        }
    }
}
#endif
