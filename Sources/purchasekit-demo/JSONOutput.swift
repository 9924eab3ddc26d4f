import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// The shapes of `--json` output. Field names are a contract for scripts; add, never rename.
enum JSONOutput {
    struct ProductEntry: Encodable {
        var id: String
        var type: String
        var displayName: String
        var description: String
        var price: String
        var displayPrice: String
        var currencyCode: String
        var familyShareable: Bool
        /// ISO-8601 period, for subscriptions that have one.
        var period: String?
        var subscriptionGroup: String?
        var introductoryOffer: String?

        init(_ product: StoreProduct) {
            id = product.id
            type = product.type.rawValue
            displayName = product.displayName
            description = product.description
            price = "\(product.price)"
            displayPrice = product.displayPrice
            currencyCode = product.currencyCode
            familyShareable = product.isFamilyShareable
            period = product.subscription?.period.iso8601
            subscriptionGroup = product.subscription?.groupID
            introductoryOffer = product.subscription?.introductoryOffer.map {
                "\($0.paymentMode.rawValue) \($0.periodCount)×\($0.period.iso8601)"
            }
        }
    }

    struct OrderEntry: Encodable {
        var id: String
        var productID: String
        var userID: String
        var status: String
        var transactionID: String?
        var source: String
        var quantity: Int
        var createdAt: Date
        var updatedAt: Date
        var verificationAttempts: Int
        /// Whether the app finished the store transaction (as the order records it).
        var finished: Bool
        /// Whether the store sees the transaction as finished.
        var storeTransactionFinished: Bool?
        /// Whether the server's ledger credits this order's transaction to this order.
        var credited: Bool
        /// Whether the order is still open (not archived).
        var open: Bool
        var hint: String?
    }

    struct EntitlementEntry: Encodable {
        var productID: String
        var productType: String
        var orderID: String
        var transactionID: String
        var expirationDate: Date?
    }

    struct UserEntry: Encodable {
        var user: String
        var entitlements: [EntitlementEntry]
        /// Delivered units by consumable product id.
        var consumables: [String: Int]
        /// Subscription status by subscription group id.
        var subscriptions: [String: String]
    }

    /// Pretty, sorted JSON with ISO-8601 dates, as a string.
    static func text(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
