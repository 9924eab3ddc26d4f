import Foundation

/// Units of a consumable the user used up, as the order store keeps it: one
/// record per spend, keyed by the user and the caller's spend id, so that a
/// retried spend finds the record of the first attempt instead of spending twice.
public struct ConsumableSpend: Sendable, Hashable, Codable {
    /// The caller's id for this spend, unique per user. A retry passes the same id.
    public var id: String
    /// The user whose balance it came from.
    public var userID: String
    /// The balance it came from: a consumable's product id, or the balance key
    /// the configuration gives it (``PurchaseEngine/Configuration/Policies/consumableCredits``).
    public var balanceKey: String
    /// How many units were spent; at least 1.
    public var amount: Int
    /// When it was recorded, on the engine's clock.
    public var date: Date
    /// The balance right after this spend.
    public var balanceAfter: Int

    /// Creates a spend record.
    public init(id: String, userID: String, balanceKey: String, amount: Int, date: Date, balanceAfter: Int) {
        self.id = id
        self.userID = userID
        self.balanceKey = balanceKey
        self.amount = amount
        self.date = date
        self.balanceAfter = balanceAfter
    }
}

/// What one unit bought of a consumable adds to a balance: `units` units of
/// the balance `balanceKey`. Several products may feed one balance ("coins"
/// from a pack of 100 and a pack of 500), and a spend takes from the balance.
/// A consumable the configuration does not name adds 1 unit per unit bought
/// to the balance named by its product id.
public struct ConsumableCredit: Sendable, Hashable {
    /// The balance the product adds to.
    public var balanceKey: String
    /// Units added per unit bought; at least 1.
    public var units: Int

    /// Creates a credit: each unit bought adds `units` to `balanceKey`.
    public init(balanceKey: String, units: Int = 1) {
        self.balanceKey = balanceKey
        self.units = units
    }

    /// Delivered units by product id, turned into balances by balance key,
    /// adding up without ever trapping (a sum saturates at `Int.max`).
    static func balances(_ delivered: [String: Int], credits: [String: ConsumableCredit]) -> [String: Int] {
        var result: [String: Int] = [:]
        for (productID, count) in delivered.sorted(by: { $0.key < $1.key }) {
            let credit = credits[productID]
            let key = credit?.balanceKey ?? productID
            let (worth, overflow) = count.multipliedReportingOverflow(by: max(1, credit?.units ?? 1))
            let (sum, sumOverflow) = result[key, default: 0].addingReportingOverflow(overflow ? Int.max : worth)
            result[key] = overflow || sumOverflow ? Int.max : sum
        }
        return result
    }

    /// The balance key the purchases of `productID` add to.
    static func key(of productID: String, in credits: [String: ConsumableCredit]) -> String {
        credits[productID]?.balanceKey ?? productID
    }
}
