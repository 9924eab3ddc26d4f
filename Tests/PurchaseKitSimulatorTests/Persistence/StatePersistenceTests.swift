import XCTest
import PurchaseKit
import PurchaseKitSimulator

final class StatePersistenceTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("purchasekit-sim-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func testANewProcessReplaysUnfinishedTransactionsAndContinuesTheStory() async throws {
        let clock = ManualClock()
        let (store, _, observer) = try await TestCatalog.makeStore()
        try await store.add(TestCatalog.payment(TestCatalog.coins, token: "finished"))
        try await store.add(TestCatalog.payment(TestCatalog.pass, token: "unfinished"))
        await store.scriptNextPurchase(.askToBuy)
        try await store.add(TestCatalog.payment(TestCatalog.premium, token: "waiting", user: "kid"))
        let finished = try XCTUnwrap(observer.updates.first { $0.orderToken == "finished" && $0.kind == .purchased }?.transaction)
        try await store.finish(transactionID: finished.id)
        try await store.refund(transactionID: finished.id)
        let url = folder.appendingPathComponent("store.json")
        try await store.saveState(to: url)

        let relaunched = try SimulatedPaymentQueue.load(from: url, clock: clock)
        let before = await relaunched.allTransactions()
        XCTAssertEqual(before.count, 2)
        XCTAssertEqual(before.first?.revocationReason, .other)
        let next = RecordingObserver()
        await relaunched.attach(next)
        XCTAssertEqual(next.kinds, [.purchased], "the refund was seen before saving; the unfinished pass replays")
        XCTAssertEqual(next.updates.first?.orderToken, "unfinished")

        let pending = await relaunched.pendingAskToBuy()
        XCTAssertEqual(pending.map(\.userID), ["kid"])
        try await relaunched.approveAskToBuy(orderToken: "waiting")
        let approved = try XCTUnwrap(next.updates.last?.transaction)
        XCTAssertEqual(approved.orderToken, "waiting")
        XCTAssertFalse(before.map(\.id).contains(approved.id), "transaction ids continue, never repeat")
        XCTAssertGreaterThan(UInt64(approved.id) ?? 0, UInt64(before.last?.id ?? "") ?? .max)
    }

    func testReceiptsOfARestoredStoreStillVerify() async throws {
        let clock = ManualClock()
        let store = SimulatedPaymentQueue(products: try TestCatalog.products, clock: clock,
                                          signer: ReceiptSigner(key: "saved-key"))
        try await store.add(TestCatalog.payment(TestCatalog.coins))
        let url = folder.appendingPathComponent("store.json")
        try await store.saveState(to: url)
        let relaunched = try SimulatedPaymentQueue.load(from: url, clock: clock)
        try await relaunched.add(TestCatalog.payment(TestCatalog.coins, token: "order-2"))
        let transaction = try unwrapped(await relaunched.allTransactions().last)
        let server = SimulatedReceiptServer(signer: ReceiptSigner(key: "saved-key"), clock: clock)
        let order = Order(id: "order-2", productID: TestCatalog.coins, userID: "user-a", createdAt: clock.now)
        let result = try await server.verify(VerificationRequest(order: order, transaction: transaction))
        XCTAssertEqual(result, .delivered)
    }

    func testSubscriptionsKeepRenewingAfterARelaunch() async throws {
        let clock = ManualClock()
        let store = SimulatedPaymentQueue(products: try TestCatalog.products,
                                          settings: .init(timeRate: .init(factor: 86_400)), clock: clock)
        try await store.add(TestCatalog.payment(TestCatalog.monthly, token: "sub"))
        let url = folder.appendingPathComponent("store.json")
        try await store.saveState(to: url)
        clock.advance(by: 35)
        let relaunched = try SimulatedPaymentQueue.load(from: url, clock: clock)
        let observer = RecordingObserver()
        await relaunched.attach(observer)
        observer.reset()
        await relaunched.processRenewals()
        XCTAssertEqual(observer.kinds, [.purchased])
        XCTAssertEqual(observer.updates.first?.transaction?.orderToken, "sub")
    }

    func testMissingAndDamagedFilesGiveTypedErrors() throws {
        let missing = folder.appendingPathComponent("missing.json")
        XCTAssertThrowsError(try SimulatedPaymentQueue.load(from: missing, clock: ManualClock())) { error in
            XCTAssertEqual((error as? PurchaseKitError)?.code, .persistenceReadFailed)
        }
        let damaged = folder.appendingPathComponent("damaged.json")
        try Data(#"{"version": 1, "records": "oops"}"#.utf8).write(to: damaged)
        XCTAssertThrowsError(try SimulatedPaymentQueue.load(from: damaged, clock: ManualClock())) { error in
            XCTAssertEqual((error as? PurchaseKitError)?.code, .persistenceCorrupt)
        }
    }

    func testSavingToAMissingFolderFails() async throws {
        let (store, _, _) = try await TestCatalog.makeStore()
        let url = folder.appendingPathComponent("no-such-folder").appendingPathComponent("store.json")
        do {
            try await store.saveState(to: url)
            XCTFail("expected a write failure")
        } catch {
            XCTAssertEqual(error.code, .persistenceWriteFailed)
        }
    }
}
