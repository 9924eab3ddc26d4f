import Foundation

extension OrderStore {
    /// The default for a store written before spends existed: it records none,
    /// so ``PurchaseEngine/spend(_:of:user:spendID:)`` fails with
    /// ``PurchaseKitError/Code/spendsNotSupported`` rather than spending units
    /// it could forget.
    public func recordSpend(_ spend: ConsumableSpend) async throws -> ConsumableSpend {
        throw PurchaseKitError(.spendsNotSupported, "This order store does not record spends of consumables.",
                               advice: "Use JournalOrderStore, FileOrderStore or InMemoryOrderStore, or implement recordSpend and spends(forUser:).")
    }

    /// The default for a store that records no spends: there are none.
    public func spends(forUser userID: String) async throws -> [ConsumableSpend] {
        []
    }
}

extension ConsumableSpend {
    /// Spends in the order they were made; the id breaks ties.
    static func chronological(_ spends: some Sequence<ConsumableSpend>) -> [ConsumableSpend] {
        spends.sorted { ($0.date, $0.id) < ($1.date, $1.id) }
    }
}
