import Foundation

extension JournalIndex {
    /// Records a spend. Returns false, and changes nothing, when the user
    /// already has a spend with this id: the first one stands.
    @discardableResult
    mutating func recordSpend(_ spend: ConsumableSpend) -> Bool {
        guard spends[spend.userID]?[spend.id] == nil else { return false }
        spends[spend.userID, default: [:]][spend.id] = spend
        return true
    }

    func spend(id: String, user userID: String) -> ConsumableSpend? {
        spends[userID]?[id]
    }

    /// Every spend, in a stable order (user, then date, then id), for snapshots.
    var allSpends: [ConsumableSpend] {
        spends.keys.sorted().flatMap { ConsumableSpend.chronological(spends[$0]?.values ?? [:].values) }
    }
}
