extension PurchaseKitError.Code {
    /// A spend asked for more units than the user's balance holds; nothing was spent.
    public static let insufficientBalance = Self(rawValue: "insufficientBalance")
    /// A spend id was used again for a different product or amount; nothing was spent.
    public static let spendIDConflict = Self(rawValue: "spendIDConflict")
    /// The order store cannot record spends (a custom store without ``OrderStore/recordSpend(_:)``).
    public static let spendsNotSupported = Self(rawValue: "spendsNotSupported")
}
