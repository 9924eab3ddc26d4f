import Foundation

extension OrderStore {
    /// The default for a store written before renewal states were kept: it
    /// keeps none, and customer info learns them from the store after each launch.
    public func saveRenewalState(_ record: RenewalStateRecord) async throws {}

    /// The default for a store that keeps no renewal states: there are none.
    public func renewalStates(forUser userID: String) async throws -> [RenewalStateRecord] {
        []
    }
}

extension RenewalStateRecord {
    /// Whether this record should replace `older` (same user and subscription): it is not older.
    func replaces(_ older: RenewalStateRecord?) -> Bool {
        guard let older else { return true }
        return asOf >= older.asOf
    }

    /// Records by original transaction id, in a stable order.
    static func sorted(_ records: some Sequence<RenewalStateRecord>) -> [RenewalStateRecord] {
        records.sorted { ($0.originalTransactionID, $0.asOf) < ($1.originalTransactionID, $1.asOf) }
    }
}
