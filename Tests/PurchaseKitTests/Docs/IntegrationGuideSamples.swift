// The code of every Swift sample in docs/IntegrationGuide.md (and of the
// README's, but for the quick start: QuickStartSamples.swift holds it),
// compiled here. `DocSamplesTests` checks that each sample's lines appear
// here unchanged, so the docs cannot drift from the API.
//
// Around the samples: stand-ins for the reader's own code (`ShopAPI`,
// `showMessage`...) and for `os.Logger` and swift-log's `Logging.Logger`,
// which are not available on Linux or without package dependencies.

import PurchaseKitSimulator
import PurchaseKitStoreKit
import XCTest
import Foundation
@_spi(Testing) import PurchaseKit

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
func refreshStoreScreen() async {}

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

    func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
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

    static func configuredParts(api: any ShopAPI, ordersFolder: URL) throws -> PurchaseEngine.Configuration {
        let configuration = PurchaseEngine.Configuration(
            paymentQueue: AppStorePaymentQueue(), receiptVerifier: ServerReceiptVerifier(api: api),
            orderStore: try JournalOrderStore(directory: ordersFolder),
            policies: .init(duplicatePurchasePolicy: .wait),
            limits: .init(maximumConcurrentPurchases: 4, storeTimeout: 120))
        return configuration
    }
}

// MARK: 11. Logging bridges

struct OSLogHandler: PurchaseLogHandler {
    let logger = Logger(subsystem: "com.example.shop", category: "purchases")
    var minimumLevel: PurchaseLogLevel { .info }

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

struct SwiftLogHandler: PurchaseLogHandler {
    let logger = Logging.Logger(label: "com.example.shop.purchases")
    var minimumLevel: PurchaseLogLevel { .info }

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
