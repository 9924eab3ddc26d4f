import Foundation

/// Units of a consumable the user used up, as the order store keeps it: one
/// record per spend, keyed by the user and the caller's spend id, so that a
/// retried spend finds the record of the first attempt instead of spending twice.
public struct ConsumableSpend: Sendable, Hashable, Codable {
    /// The caller's id for this spend, unique per user. A retry passes the same id.
    public var id: String
    /// The user whose balance it came from.
    public var userID: String
    /// The consumable product whose balance it came from.
    public var productID: String
    /// How many units were spent; at least 1.
    public var amount: Int
    /// When it was recorded, on the engine's clock.
    public var date: Date
    /// The product's balance right after this spend.
    public var balanceAfter: Int

    public init(id: String, userID: String, productID: String, amount: Int, date: Date, balanceAfter: Int) {
        self.id = id
        self.userID = userID
        self.productID = productID
        self.amount = amount
        self.date = date
        self.balanceAfter = balanceAfter
    }
}
