import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// A store whose `add` throws never took the payment: the call hears why,
/// about its own order, and not that the store refused a payment.
final class PaymentNotTakenTests: XCTestCase {
    private struct Offline: Error {}

    private func engine(in world: World, failingAddWith error: any Error) async throws -> PurchaseEngine {
        let queue = InterceptingPaymentQueue(wrapping: world.store) { call in
            guard case .add = call else { return .proceed }
            return .fail(error)
        }
        return try await world.engine(world.configuration(queue: queue))
    }

    func testAStoreThatCannotBeReachedAnswersStoreUnavailableNotARefusal() async throws {
        let world = World()
        let engine = try await engine(in: world, failingAddWith: Offline())
        let error = await assertThrows(.storeUnavailable) {
            _ = try await engine.purchase(productID: Catalog.coins, user: "alice")
        }
        XCTAssertEqual(error?.orderID, "order-1")
        XCTAssertNil(error?.storeReason, "the store gave no answer, so no reason for a refusal")
        XCTAssertFalse(error?.message.contains("refused") ?? true, error?.message ?? "")
        XCTAssertTrue(error?.advice.contains("Nothing was charged") ?? false, error?.advice ?? "")
        XCTAssertTrue(error?.underlying is Offline)
        let transactions = await world.store.allTransactions()
        XCTAssertTrue(transactions.isEmpty)
        let stored = await world.orders.order(id: "order-1")
        XCTAssertEqual(stored?.status, .failed, "the order is failed all the same")
    }

    /// A store's own typed error passes through, but it names the order the
    /// engine knows, never what the store had (the store knows only the
    /// order token, a secret).
    func testAStoresTypedErrorNamesTheOrderNotTheToken() async throws {
        let world = World()
        let token = "c0ffee00-1111-4222-8333-secret-order-token"
        let refused = PurchaseKitError(.paymentsNotAllowed, "This device may not make payments.", advice: "Check restrictions.",
                                       orderID: token)
        let engine = try await engine(in: world, failingAddWith: refused)
        let error = await assertThrows(.paymentsNotAllowed) {
            _ = try await engine.purchase(productID: Catalog.coins, user: "alice")
        }
        XCTAssertEqual(error?.orderID, "order-1")
        for record in world.log.records {
            let line = record.message + " " + record.metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            XCTAssertFalse(line.contains(token), "a log line holds the token: \(line.replacingOccurrences(of: token, with: "<token>"))")
        }
    }
}
