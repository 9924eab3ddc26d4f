// The guide's samples for using the engine in an app (sections 5, 7, 9):
// products, completion handlers, promoted purchases, buying, restore,
// history, customer info and spending. `DocSamplesTests` reads them here as it
// reads IntegrationGuideSamples.swift; most stand-ins they call (`ShopAPI`,
// `showMessage`...) are in that file.

import Foundation
import PurchaseKit
import PurchaseKitSimulator
import XCTest

private func showMessage(_ text: String) {}

// MARK: 5, 7.1, 7.3, 7.4, 9. The store's clock, products, completion handlers, promoted purchases, restore, history

private func currentUserID() async -> String? { "u-1" }

enum GuideFacadeSamples {
    static func fileStoreWithItsClock(folder: URL, products: [StoreProduct], verifier: any ReceiptVerifier) throws -> PurchaseEngine {
        let clock = ManualClock()
        let files = try FileOrderStore(directory: folder,
                                       configuration: .init(archiveRetention: 90 * 24 * 3600, clock: clock))
        let engine = try PurchaseEngine(configuration: .init(
            paymentQueue: SimulatedPaymentQueue(products: products, clock: clock),
            receiptVerifier: verifier, orderStore: files, clock: clock))
        return engine
    }

    static func products(engine: PurchaseEngine) async throws {
        let list = try await engine.products(for: ["com.example.coins.100", "com.example.premium", "com.example.plus.monthly"])
        for id in list.invalidProductIDs { print("Not for sale:", id) }
        for product in list.consumables + list.nonConsumables {
            print(product.displayName, product.formattedPrice(locale: Locale(identifier: "en_US")))
        }
        for group in list.subscriptionGroups {
            for plan in group.products {   // highest level of service first
                print(group.name ?? group.id, plan.displayName, plan.formattedPricePerPeriod() ?? plan.formattedPrice())
            }
        }
    }

    static func completionHandlers(engine: PurchaseEngine, userID: String) {
        engine.purchase(productID: "com.example.premium", user: userID) { result in
            switch result {
            case .success(.success): showMessage("Premium is yours.")
            case .success: break
            case .failure(let error): showMessage(error.message)
            }
        }
        engine.restorePurchases(user: userID) { result in
            if case .success(let restored) = result, !restored.userCancelled {
                showMessage("\(restored.restoredProductIDs.count) purchases restored.")
            }
        }
    }

    static func promotedPurchases(engine: PurchaseEngine, userID: String) async throws {
        await engine.setPromotedPurchaseHandler { intent in
            guard let user = await currentUserID() else { return .defer }
            return .accept(user: user)
        }
        // Later, when onboarding is done:
        for intent in await engine.deferredPromotedPurchases {
            _ = try await engine.resumePromotedPurchase(id: intent.id, user: userID)
        }
    }

    static func restoreResult(engine: PurchaseEngine, userID: String) async throws {
        do {
            let result = try await engine.restorePurchases(user: userID)
            if result.userCancelled { return }
            if !result.owed.isEmpty { showMessage("Some purchases are on their way.") }
            if !result.failures.isEmpty { showMessage("Some purchases could not be restored; try again.") }
        } catch let error as PurchaseKitError {
            showMessage("\(error.message) \(error.advice)")
        }
    }

    static func history(engine: PurchaseEngine, userID: String) async throws -> ([Order], [Order]) {
        let history = try await engine.history(user: userID)                   // every outcome
        let transactions = try await engine.history(user: userID, paidOnly: true) // paid ones only
        return (history, transactions)
    }
}

// MARK: 7-10. Buying, retry triggers, restore, entitlements, events

enum GuideUsageSamples {
    static func buy(engine: PurchaseEngine, userID: String) async throws {
        do {
            switch try await engine.purchase(productID: "com.example.coins.100", user: userID) {
            case .success(let order):
                showMessage("Thank you! Order \(order.id) is delivered.")
            case .userCancelled:
                break
            case .pending(_, .awaitingApproval):
                showMessage("Waiting for approval from the family organiser.")
            case .pending:
                showMessage("Your purchase is being processed; it will appear shortly.")
            }
        } catch let error as PurchaseKitError {
            showMessage("\(error.message) \(error.advice)")
        }
    }

    static func retryTriggers(engine: PurchaseEngine, userID: String, orderID: String) async throws {
        // At login and on a user switch:
        await engine.setCurrentUser(userID)
        await engine.retryPendingDeliveries(user: userID)

        // When the network comes back:
        await engine.retryPendingDeliveries()

        // From a "Try again" button on an order that needs attention:
        try await engine.retry(orderID: orderID)
    }

    static func restore(engine: PurchaseEngine, userID: String) async throws {
        let restored = try await engine.restorePurchases(user: userID)
        showMessage(restored.restoredProductIDs.isEmpty ? "Nothing to restore." : "Your purchases are back.")
    }

    static func entitlements(engine: PurchaseEngine, userID: String) async throws -> (Bool, Int, SubscriptionStatus?) {
        let owned = try await engine.entitlements(user: userID)
        let hasPremium = owned.contains { $0.productID == "com.example.premium" }
        let coins = try await engine.consumableBalance(user: userID)["com.example.coins.100", default: 0]
        let plus = try await engine.subscriptionStatus(user: userID)["plus-group"]
        return (hasPremium, coins, plus)
    }

    static func events(engine: PurchaseEngine, userID: String) {
        Task {
            for await event in await engine.events() {
                switch event {
                case .orderChanged(let order, let from):
                    print("\(order.id): \(from?.rawValue ?? "new") → \(order.status.rawValue)")
                case .entitlementsChanged(let user) where user == userID:
                    await refreshStoreScreen()
                case .needsAttention(let order):
                    print("Order \(order.id) needs attention: \(order.hint ?? "")")
                default:
                    break
                }
            }
        }
    }
}

// MARK: 9.2-9.3 Customer info and spending consumables

@MainActor final class StandInButton { var isHidden = false }
@MainActor let premiumButton = StandInButton()
private func showStoreScreen(_ info: CustomerInfo) async {}

enum GuideCustomerSamples {
    static func customerInfo(engine: PurchaseEngine, userID: String) async throws -> (Int, Bool?) {
        let info = try await engine.customerInfo(user: userID)
        let coins = info.consumableBalances["com.example.coins.100", default: 0]
        let plusRenews = info.activeSubscriptions["plus-group"]?.willAutoRenew
        Task {
            for await info in await engine.customerInfoUpdates(user: userID) {
                await showStoreScreen(info)
            }
        }
        return (coins, plusRenews)
    }

    static func customerInfoCallback(engine: PurchaseEngine, userID: String) {
        engine.customerInfo(user: userID) { result in
            switch result {
            case .success(let info): premiumButton.isHidden = info.isEntitled(to: "com.example.premium")
            case .failure(let error): showMessage(error.message)
            }
        }
    }

    static func nonRenewingLengths(_ configuration: PurchaseEngine.Configuration) throws -> PurchaseEngine.Configuration {
        var configuration = configuration
        configuration.policies.nonRenewingDurations = ["com.example.season": try SubscriptionPeriod(iso8601: "P3M")]
        return configuration
    }

    static func balanceKeys(_ configuration: PurchaseEngine.Configuration) -> PurchaseEngine.Configuration {
        var configuration = configuration
        configuration.policies.consumableCredits = ["com.example.coins.100": ConsumableCredit(balanceKey: "coins", units: 100),
                                           "com.example.coins.500": ConsumableCredit(balanceKey: "coins", units: 500)]
        return configuration
    }

    static func spend(engine: PurchaseEngine, userID: String, hintUseID: String) async throws {
        do {
            let spend = try await engine.spend(1, of: "com.example.hints", user: userID, spendID: hintUseID)
            showMessage("Here is your hint; \(spend.balanceAfter) left.")
        } catch let error as PurchaseKitError where error.code == .insufficientBalance {
            showMessage("No hints left.")
        }
    }
}
