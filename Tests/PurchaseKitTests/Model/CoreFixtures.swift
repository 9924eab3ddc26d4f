import Foundation
@testable import PurchaseKit

/// Values shared by the model, error and persistence tests. Secrets are
/// distinctive strings so that a leak is easy to spot in any rendering.
enum CoreFixtures {
    static let receipt = Data("SECRET-RECEIPT".utf8)
    static let token = "TOKEN-XYZ"

    /// Every form in which the receipt bytes could leak.
    static var secretRenderings: [String] {
        [
            "SECRET-RECEIPT",
            receipt.base64EncodedString(),
            receipt.map { String(format: "%02x", $0) }.joined(),
            receipt.map { String(format: "%02X", $0) }.joined(),
            token,
        ]
    }

    /// Dates with fractional seconds, so that lossy date coding shows up.
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSinceReferenceDate: seconds) }

    static func transaction(id: String = "tx-1") -> StoreTransaction {
        StoreTransaction(
            id: id,
            originalID: "tx-0",
            productID: "com.example.pro.monthly",
            purchaseDate: date(760_000_000.125),
            expirationDate: date(762_592_000.5),
            revocationDate: date(761_000_000.75),
            revocationReason: .developerIssue,
            quantity: 2,
            orderToken: token,
            receipt: receipt,
            environment: .production,
            reason: .renewal)
    }

    /// An order with every optional field set.
    static func fullOrder(id: String = "order-1") -> Order {
        var order = Order(
            id: id, productID: "com.example.pro.monthly", userID: "user-1", token: token, quantity: 3, source: .renewal,
            status: .needsAttention, createdAt: date(759_999_000.001), metadata: ["campaign": "spring", "tier": "gold"])
        order.paymentBeganAt = date(759_999_100.25)
        order.paymentFinishedAt = date(759_999_200.5)
        order.updatedAt = date(759_999_300.75)
        order.verificationAttempts = 4
        order.nextAttemptAt = date(760_003_000.0625)
        order.hint = "The verifier timed out."
        order.lastErrorCode = .verificationUnavailable
        order.storeFailureReason = .networkError
        order.transaction = transaction()
        order.finishedAt = date(760_004_000.875)
        return order
    }

    /// Copies of `shared`, one in each of 64 tasks running at once, each
    /// changed by `change` with its task's number: what every task's copy
    /// became, by that number. For the value types that share their storage
    /// with their copies until one changes.
    static func copiesChangedInManyTasks<Value: Sendable>(
        of shared: Value, _ change: @escaping @Sendable (inout Value, Int) -> Void
    ) async -> [Int: Value] {
        await withTaskGroup(of: (Int, Value).self, returning: [Int: Value].self) { group in
            for index in 0..<64 {
                group.addTask {
                    var mine = shared
                    change(&mine, index)
                    return (index, mine)
                }
            }
            var all: [Int: Value] = [:]
            for await (index, value) in group { all[index] = value }
            return all
        }
    }

    /// Renders `value` with `dump`.
    static func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
