import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
import PurchaseRigs

/// The products and orders the benchmarks use.
enum Fixtures {
    /// A consumable (``PurchaseRounds/coins``): every purchase runs the whole lifecycle.
    static let coins = PurchaseRounds.coins

    /// When the fixture's orders were made: a day before the first fixture
    /// of the process is built. A resting order waits for a parent's
    /// approval, which expires 48 hours after its payment began (the default
    /// `approvalExpiry`), so every one stays open through the run. A fixed
    /// date in the past once made every launch expire and archive all of them.
    static let start = Date().addingTimeInterval(-86_400)

    /// A typical stored order: paid for nothing yet, resting in `deferred`
    /// (Ask to Buy waiting for a parent). It is open, so a launch loads it, but
    /// it owes nothing, so recovery has no further work: loading is what is measured.
    /// Orders are a tenth of a second apart: 100,000 of them span under three hours.
    static func restingOrder(_ index: Int) -> Order {
        let order = Order(id: "fixture-\(index)", productID: coins.id, userID: "user-\(index % 1_000)",
                          token: UUID().uuidString.lowercased(), status: .deferred,
                          createdAt: start.addingTimeInterval(Double(index) / 10),
                          metadata: ["campaign": "spring", "screen": "store"])
        return order.fixture(paymentBeganAt: order.createdAt, updatedAt: order.createdAt.addingTimeInterval(1))
    }

    /// An order that owes a delivery: paid (`purchased`) with its transaction backed up.
    static func owedOrder(_ index: Int) -> Order {
        let order = restingOrder(index)
        var transaction = StoreTransaction(id: "\(3_000_000_000 + index)", productID: coins.id,
                                           purchaseDate: order.updatedAt, orderToken: order.token)
        transaction.receipt = Data(repeating: 0x5A, count: 256)
        return order.fixture(status: .purchased, paymentFinishedAt: order.updatedAt, transaction: transaction)
    }

    /// The engine every purchase benchmark uses (``PurchaseRounds/engine(store:maximumConcurrentPurchases:queue:)``).
    static func engine(store: any OrderStore, maximumConcurrentPurchases: Int,
                       queue: (any PaymentQueue)? = nil) throws -> PurchaseEngine {
        try PurchaseRounds.engine(store: store, maximumConcurrentPurchases: maximumConcurrentPurchases, queue: queue)
    }
}
