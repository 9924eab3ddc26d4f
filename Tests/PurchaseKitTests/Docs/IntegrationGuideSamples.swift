// The code of every Swift sample in docs/IntegrationGuide.md (and the README
// sections), compiled here. `DocSamplesTests` checks that each sample's lines
// appear here unchanged, so the docs cannot drift from the API.
//
// Around the samples: stand-ins for the reader's own code (`ShopAPI`,
// `showMessage`...) and for `os.Logger` and swift-log's `Logging.Logger`,
// which are not available on Linux or without package dependencies.

import PurchaseKitSimulator
import PurchaseKitStoreKit
import XCTest
// The README's quick start, exactly:
import Foundation
import PurchaseKit

func makeEngine(store: any PaymentQueue, server: any ReceiptVerifier, ordersFolder: URL) async throws -> PurchaseEngine {
    let engine = try PurchaseEngine(configuration: .init(
        paymentQueue: store,                                   // AppStorePaymentQueue(), or SimulatedPaymentQueue in tests
        receiptVerifier: server,                               // your server: verify, credit once per transaction id
        orderStore: try JournalOrderStore(directory: ordersFolder)))
    try await engine.start()                                   // at launch, before any UI: recovers what a kill left
    return engine
}

func buyCoins(with engine: PurchaseEngine, user: String) async {
    do {
        switch try await engine.purchase(productID: "com.example.coins.100", user: user) {
        case .success(let order): print("delivered", order.id)
        case .userCancelled: print("cancelled")
        case .pending(_, let reason): print("pending:", reason)   // Ask to Buy, or delivery retrying
        }
    } catch let error as PurchaseKitError {
        print(error.message, error.advice)                     // typed: error.code says what happened
    } catch {
        print(error)
    }
}


// MARK: Stand-ins for the app's own code

/// The app's networking layer, as the guide imagines it.
protocol ShopAPI: Sendable {
    func createOrder(productID: String, userID: String, quantity: Int) async throws -> String
    func deliver(orderID: String, userID: String, transactionID: String, receipt: Data) async throws -> DeliveryReply
}

/// The server's answer to a delivery request.
struct DeliveryReply: Sendable {
    var status: Int
    var code: String
}

private func showMessage(_ text: String) {}
private func onboardingIsDone() async -> Bool { true }
private func refreshStoreScreen() async {}

// MARK: Stand-in for os.Logger (same call shape)

struct Logger: Sendable {
    init(subsystem: String, category: String) {}
    func debug(_ message: OSLogMessageStandIn) {}
    func info(_ message: OSLogMessageStandIn) {}
    func warning(_ message: OSLogMessageStandIn) {}
    func error(_ message: OSLogMessageStandIn) {}
}

enum OSLogPrivacyStandIn { case `public`, `private` }

struct OSLogMessageStandIn: ExpressibleByStringInterpolation {
    struct Interpolation: StringInterpolationProtocol {
        var text = ""
        init(literalCapacity: Int, interpolationCount: Int) {}
        mutating func appendLiteral(_ literal: String) { text += literal }
        mutating func appendInterpolation(_ value: String, privacy: OSLogPrivacyStandIn) { text += value }
    }

    var text: String
    init(stringLiteral value: String) { text = value }
    init(stringInterpolation: Interpolation) { text = stringInterpolation.text }
}

// MARK: Stand-in for swift-log (same call shape)

enum Logging {
    struct Logger: Sendable {
        enum Level { case trace, debug, info, notice, warning, error, critical }
        enum MetadataValue { case string(String) }
        typealias Metadata = [String: MetadataValue]
        struct Message: ExpressibleByStringInterpolation {
            init(stringLiteral value: String) {}
        }

        init(label: String) {}
        func log(level: Level, _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil) {}
    }
}

// MARK: 2. The order generator

struct ServerOrderGenerator: OrderGenerator {
    let api: any ShopAPI

    func makeOrderID(for request: OrderRequest) async throws -> String {
        try await api.createOrder(productID: request.productID, userID: request.userID, quantity: request.quantity)
    }
}

// MARK: 3. The receipt verifier

struct ServerReceiptVerifier: ReceiptVerifier {
    let api: any ShopAPI

    func verify(_ request: VerificationRequest) async throws -> VerificationResult {
        let reply: DeliveryReply
        do {
            reply = try await api.deliver(orderID: request.order.id, userID: request.order.userID,
                                          transactionID: request.idempotencyKey, receipt: request.transaction.receipt)
        } catch {
            return .retryLater(reason: "the server did not answer")
        }
        switch reply.status {
        case 200: return .delivered
        case 208: return .alreadyDelivered
        case 400, 403, 422: return .invalid(reason: reply.code)
        default: return .retryLater(reason: "server status \(reply.status)")
        }
    }
}

// MARK: 4-6. The store, the file store, recovery at launch

enum GuideSetupSamples {
    static func simulatedStore(storeKitFile: URL) throws -> SimulatedPaymentQueue {
        let clock = ManualClock()
        let configuration = try StoreKitConfiguration(contentsOf: storeKitFile)
        let store = SimulatedPaymentQueue(configuration: configuration, clock: clock)
        return store
    }

    static func orderStore() throws -> JournalOrderStore {
        let support = try FileManager.default.url(for: .applicationSupportDirectory, in: .userDomainMask,
                                                  appropriateFor: nil, create: true)
        let orders = try JournalOrderStore(directory: support.appendingPathComponent("Purchases"),
                                           configuration: .init(archiveRetention: 90 * 24 * 3600))
        return orders
    }

    static func launch(storeQueue: any PaymentQueue, api: any ShopAPI, orders: JournalOrderStore, userID: String) async throws -> PurchaseEngine {
        let engine = try PurchaseEngine(configuration: .init(
            paymentQueue: storeQueue,
            receiptVerifier: ServerReceiptVerifier(api: api),
            orderStore: orders,
            orderGenerator: ServerOrderGenerator(api: api),
            logHandler: OSLogHandler()))
        let report = try await engine.start()
        for problem in report.problems {
            print("A saved order was set aside:", problem.message)
        }
        await engine.setCurrentUser(userID)
        return engine
    }
}

// MARK: 5, 7.1, 7.3, 7.4, 9. The store's clock, products, completion handlers, promoted purchases, restore, history

private func currentUserID() async -> String? { "u-1" }

enum GuideFacadeSamples {
    static func fileStoreWithItsClock(folder: URL, products: [Product], verifier: any ReceiptVerifier) throws -> PurchaseEngine {
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
        configuration.nonRenewingDurations = ["com.example.season": try SubscriptionPeriod(iso8601: "P3M")]
        return configuration
    }

    static func balanceKeys(_ configuration: PurchaseEngine.Configuration) -> PurchaseEngine.Configuration {
        var configuration = configuration
        configuration.consumableCredits = ["com.example.coins.100": ConsumableCredit(balanceKey: "coins", units: 100),
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

// MARK: 11. Logging bridges

struct OSLogHandler: LogHandler {
    let logger = Logger(subsystem: "com.example.shop", category: "purchases")
    var minimumLevel: LogLevel { .info }

    func log(_ record: LogRecord) {
        let text = record.message + record.metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        switch record.level {
        case .trace, .debug: logger.debug("\(text, privacy: .public)")
        case .info, .notice: logger.info("\(text, privacy: .public)")
        case .warning: logger.warning("\(text, privacy: .public)")
        case .error: logger.error("\(text, privacy: .public)")
        }
    }
}

struct SwiftLogHandler: PurchaseKit.LogHandler {
    let logger = Logging.Logger(label: "com.example.shop.purchases")
    var minimumLevel: PurchaseKit.LogLevel { .info }

    func log(_ record: LogRecord) {
        let level: Logging.Logger.Level
        switch record.level {
        case .trace: level = .trace
        case .debug: level = .debug
        case .info: level = .info
        case .notice: level = .notice
        case .warning: level = .warning
        case .error: level = .error
        }
        logger.log(level: level, "\(record.message)", metadata: record.metadata.mapValues { .string($0) })
    }
}

// MARK: 12. Testing your own purchase code (this one runs with the suite)

final class CheckoutTests: XCTestCase {
    func testCoinsAreCreditedOnceWhenTheServerWasDownAtPurchase() async throws {
        let clock = ManualClock()
        let store = SimulatedPaymentQueue(configuration: try .sample(), clock: clock)
        let server = SimulatedReceiptServer(clock: clock, store: store)
        let configuration = PurchaseEngine.Configuration(
            paymentQueue: store, receiptVerifier: server, orderStore: InMemoryOrderStore(), clock: clock)

        await server.failNext(1, with: .serverError(statusCode: 503))
        let engine = try PurchaseEngine(configuration: configuration)
        try await engine.start()
        let result = try await engine.purchase(productID: "com.example.purchasekit.coins.100", user: "alice")
        guard case .pending(_, .deliveryRetrying) = result else { return XCTFail("expected a retry, got \(result)") }

        // The next launch: a new engine on the same store, server and orders.
        let relaunched = try PurchaseEngine(configuration: configuration)
        try await relaunched.start()
        await relaunched.waitUntilIdle()

        let balance = try await relaunched.consumableBalance(user: "alice")
        XCTAssertEqual(balance["com.example.purchasekit.coins.100"], 1)
        let unfinished = await store.unfinishedTransactions()
        XCTAssertTrue(unfinished.isEmpty)
        let credits = await server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["alice"])
    }
}

// MARK: 4.1 The App Store adapter

func makeAppStoreEngine(api: any ShopAPI, ordersFolder: URL) throws -> PurchaseEngine {
    try PurchaseEngine(configuration: .init(
        paymentQueue: AppStorePaymentQueue(),
        receiptVerifier: VerifiedReceiptsOnly(ServerReceiptVerifier(api: api)),
        orderStore: try JournalOrderStore(directory: ordersFolder),
        orderGenerator: ServerOrderGenerator(api: api)))
}

func makePromotedPurchasesQueue() -> AppStorePaymentQueue {
    let appStore = AppStorePaymentQueue(configuration: .init(promotedPurchases: .ask { product in
        await onboardingIsDone()
    }))
    return appStore
}
