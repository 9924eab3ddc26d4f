// The README's quick start, exactly as an app writes it: a plain
// `import PurchaseKit`, no test hooks. `DocSamplesTests` checks it.

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
