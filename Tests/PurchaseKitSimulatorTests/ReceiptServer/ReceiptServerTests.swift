import XCTest
import PurchaseKit
import PurchaseKitSimulator

final class ReceiptServerTests: XCTestCase {
    private func purchase(
        _ store: SimulatedPaymentQueue, product: String = TestCatalog.coins, token: String = "order-1"
    ) async throws -> StoreTransaction {
        try await store.add(TestCatalog.payment(product, token: token))
        return try unwrapped(await store.allTransactions().last)
    }

    private func request(_ transaction: StoreTransaction, user: String = "user-a", orderID: String = "order-1") -> VerificationRequest {
        VerificationRequest(
            order: Order(id: orderID, productID: transaction.productID, userID: user, createdAt: ManualClock.defaultStart),
            transaction: transaction)
    }

    func testFirstValidCallDeliversAndLaterCallsNeverCreditTwice() async throws {
        let (store, clock, _) = try await TestCatalog.makeStore()
        let server = SimulatedReceiptServer(clock: clock)
        let transaction = try await purchase(store)
        let first = try await server.verify(request(transaction))
        let second = try await server.verify(request(transaction))
        XCTAssertEqual(first, .delivered)
        XCTAssertEqual(second, .alreadyDelivered)
        let count = await server.creditCount(transactionID: transaction.id)
        XCTAssertEqual(count, 1)
        let credit = try unwrapped(await server.credits(forTransactionID: transaction.id).first)
        XCTAssertEqual(credit.userID, "user-a")
        XCTAssertEqual(credit.productID, TestCatalog.coins)
        XCTAssertEqual(credit.quantity, 1)
        let requests = await server.requestCount(transactionID: transaction.id)
        XCTAssertEqual(requests, 2)
    }

    func testAnotherUserCannotTakeACreditedTransaction() async throws {
        let (store, clock, _) = try await TestCatalog.makeStore()
        let server = SimulatedReceiptServer(clock: clock)
        let transaction = try await purchase(store)
        _ = try await server.verify(request(transaction, user: "user-a"))
        let other = try await server.verify(request(transaction, user: "user-b"))
        guard case .invalid = other else { return XCTFail("expected invalid, got \(other)") }
        let all = await server.allCredits
        XCTAssertEqual(all.map(\.userID), ["user-a"])
    }

    func testForgedGarbledAndMismatchedReceiptsAreInvalid() async throws {
        let (store, clock, _) = try await TestCatalog.makeStore()
        let server = SimulatedReceiptServer(clock: clock)
        let transaction = try await purchase(store)

        var forged = transaction
        var text = String(decoding: transaction.receipt, as: UTF8.self)
        let middle = text.index(text.startIndex, offsetBy: 10)
        text.replaceSubrange(middle...middle, with: text[middle] == "A" ? "B" : "A")
        forged.receipt = Data(text.utf8)
        var garbled = transaction
        garbled.receipt = Data([0xFF, 0x00, 0x13])
        let other = try await purchase(store, token: "order-2")
        var swapped = transaction
        swapped.receipt = other.receipt

        let foreignSigner = SimulatedPaymentQueue(products: try TestCatalog.products, clock: clock,
                                                  signer: ReceiptSigner(key: "someone else"))
        try await foreignSigner.add(TestCatalog.payment(TestCatalog.coins))
        let foreign = try unwrapped(await foreignSigner.allTransactions().first)

        for bad in [forged, garbled, swapped, foreign] {
            let result = try await server.verify(request(bad))
            guard case .invalid(let reason) = result else { return XCTFail("expected invalid, got \(result)") }
            XCTAssertFalse(reason.contains(String(decoding: bad.receipt, as: UTF8.self)), "never echo the receipt")
        }
        let credits = await server.allCredits
        XCTAssertTrue(credits.isEmpty)
    }

    func testWrongEnvironmentLikeStatus21007And21008() async throws {
        let clock = ManualClock()
        let sandboxStore = SimulatedPaymentQueue(products: try TestCatalog.products, clock: clock, environment: .sandbox)
        let productionStore = SimulatedPaymentQueue(products: try TestCatalog.products, clock: clock, environment: .production)
        let sandboxReceipt = try await purchase(sandboxStore)
        let productionReceipt = try await purchase(productionStore)

        let production = SimulatedReceiptServer(environment: .production, clock: clock)
        let sandbox = SimulatedReceiptServer(environment: .sandbox, clock: clock)
        let toProduction = try await production.verify(request(sandboxReceipt))
        let toSandbox = try await sandbox.verify(request(productionReceipt))
        guard case .invalid(let reason) = toProduction else { return XCTFail("expected invalid, got \(toProduction)") }
        XCTAssertTrue(reason.hasPrefix("21007"))
        guard case .retryLater(let retryReason) = toSandbox else { return XCTFail("expected retryLater, got \(toSandbox)") }
        XCTAssertTrue(retryReason.hasPrefix("21008"))

        let fallingBack = SimulatedReceiptServer(environment: .production, clock: clock, fallsBackToOtherEnvironment: true)
        let retried = try await fallingBack.verify(request(sandboxReceipt))
        XCTAssertEqual(retried, .delivered)
        let credit = await fallingBack.credits(forTransactionID: sandboxReceipt.id)
        XCTAssertEqual(credit.first?.environment, .sandbox)
    }

    func testRefundedTransactionIsInvalidWhenTheServerKnowsTheStore() async throws {
        let (store, clock, _) = try await TestCatalog.makeStore()
        let server = SimulatedReceiptServer(clock: clock, store: store)
        let transaction = try await purchase(store)
        try await store.refund(transactionID: transaction.id)
        let result = try await server.verify(request(transaction))
        guard case .invalid = result else { return XCTFail("expected invalid, got \(result)") }
    }

    func testTimeoutSleepsOnTheClockThenThrowsWithoutCrediting() async throws {
        let (store, clock, _) = try await TestCatalog.makeStore()
        let server = SimulatedReceiptServer(clock: clock)
        await server.setTimeout(30)
        await server.failNext(1, with: .timeout)
        let transaction = try await purchase(store)
        let pendingRequest = request(transaction)
        let call = Task { try await server.verify(pendingRequest) }
        await clock.waitForSleepers(count: 1)
        clock.advance(by: 30)
        do {
            _ = try await call.value
            XCTFail("expected a timeout")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .timeout)
        }
        let count = await server.creditCount(transactionID: transaction.id)
        XCTAssertEqual(count, 0)
        let retry = try await server.verify(request(transaction))
        XCTAssertEqual(retry, .delivered)
    }

    func testServerErrorAsksToRetryAndReplyLostStillCreditsOnce() async throws {
        let (store, clock, _) = try await TestCatalog.makeStore()
        let server = SimulatedReceiptServer(clock: clock)
        await server.scriptNextReplies([.serverError(statusCode: 503), .replyLost, nil])
        let transaction = try await purchase(store)
        let first = try await server.verify(request(transaction))
        guard case .retryLater = first else { return XCTFail("expected retryLater, got \(first)") }
        var count = await server.creditCount(transactionID: transaction.id)
        XCTAssertEqual(count, 0)
        do {
            _ = try await server.verify(request(transaction))
            XCTFail("the reply was lost")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .verificationUnavailable)
        }
        count = await server.creditCount(transactionID: transaction.id)
        XCTAssertEqual(count, 1, "the server applied the request before the reply was lost")
        let third = try await server.verify(request(transaction))
        XCTAssertEqual(third, .alreadyDelivered)
        count = await server.creditCount(transactionID: transaction.id)
        XCTAssertEqual(count, 1)
    }

    func testRandomFaultsAreDeterminedByTheSeed() async throws {
        func run(seed: UInt64) async throws -> [String] {
            let (store, clock, _) = try await TestCatalog.makeStore()
            let server = SimulatedReceiptServer(clock: clock, seed: seed)
            await server.setFaultRates(ServerFaultRates(serverError: 0.4, replyLost: 0.2))
            var outcomes: [String] = []
            for index in 0..<30 {
                let transaction = try await purchase(store, token: "o\(index)")
                do {
                    outcomes.append("\(try await server.verify(request(transaction)))")
                } catch {
                    outcomes.append("thrown")
                }
            }
            return outcomes
        }
        let first = try await run(seed: 3)
        let again = try await run(seed: 3)
        XCTAssertEqual(first, again)
        XCTAssertTrue(first.contains("delivered"))
        XCTAssertTrue(first.contains { $0.hasPrefix("retryLater") })
        XCTAssertTrue(first.contains("thrown"))
    }
}
