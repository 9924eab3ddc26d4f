import Foundation

/// What the adapter remembers about StoreKit's transactions: those it handed
/// to the engine and must keep until the engine finishes them, the purchases
/// the store started that are still pending, and each subscription's group.
/// Pure: no StoreKit, no I/O.
struct TransactionBook {
    /// Transactions handed over and not finished yet, by id, as last handed over.
    private var held: [UInt64: TransactionEvent] = [:]
    /// Products of promoted purchases that went pending, by how many.
    private var pendingPromoted: [String: Int] = [:]
    /// Subscription group of each original transaction seen.
    private var groups: [UInt64: String] = [:]

    /// The ids of the transactions kept for the engine to finish.
    var heldIDs: [UInt64] { held.keys.sorted() }

    /// Keeps a transaction that is being handed to the engine (a replay of
    /// the unfinished ones, or a purchase's answer), replacing an older copy.
    mutating func hold(_ event: TransactionEvent) {
        held[event.snapshot.id] = event
        remember(event.snapshot)
    }

    /// A transaction from `Transaction.updates`. Nil when it is exactly the
    /// one already handed over and still unfinished (StoreKit replays the
    /// unfinished ones when the sequence starts), or when StoreKit can verify
    /// it only later (see ``TransactionSnapshot/verifiesLater``); otherwise it is kept, and
    /// the answer says whether the store started it: it completes a promoted
    /// purchase that went pending (a new, tokenless purchase of that product).
    mutating func receive(_ event: TransactionEvent) -> Bool? {
        if event.snapshot.verifiesLater { return nil }
        remember(event.snapshot)
        if let known = held[event.snapshot.id], known.snapshot == event.snapshot { return nil }
        held[event.snapshot.id] = event
        let snapshot = event.snapshot
        let completesPromoted = snapshot.appAccountToken == nil && snapshot.revocationDate == nil
            && snapshot.originalID == snapshot.id && takePendingPromoted(snapshot.productID)
        return completesPromoted
    }

    /// The way to finish a held transaction, which is forgotten; nil when none is held.
    mutating func release(_ id: UInt64) -> (@Sendable () async -> Void)? {
        held.removeValue(forKey: id)?.finish
    }

    /// A promoted purchase of `productID` went pending: its approval will
    /// arrive through `Transaction.updates`, without a token.
    mutating func promotedPurchaseWentPending(_ productID: String) {
        pendingPromoted[productID, default: 0] += 1
    }

    private mutating func takePendingPromoted(_ productID: String) -> Bool {
        guard let count = pendingPromoted[productID], count > 0 else { return false }
        pendingPromoted[productID] = count > 1 ? count - 1 : nil
        return true
    }

    /// The subscription group of the subscription that began with `originalID`, if seen.
    func groupID(ofOriginal originalID: UInt64) -> String? {
        groups[originalID]
    }

    private mutating func remember(_ snapshot: TransactionSnapshot) {
        if let group = snapshot.subscriptionGroupID, snapshot.isVerified {
            groups[snapshot.originalID] = group
        }
    }
}
