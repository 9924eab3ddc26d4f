/// Who may match store transactions to orders at the same time.
///
/// Matching must never let two transactions claim one order, nor one
/// transaction two orders. An update that carries order tokens can only reach
/// orders through those tokens and its transaction's ids, so it claims just
/// those keys: updates with disjoint keys (64 users buying at once) are
/// matched and saved side by side, and their saves share the order store's
/// flushes. An update without a token may be matched by guess to any waiting
/// order, and restores and revocations look across every order, so they claim
/// everything (`exclusive`).
///
/// Claims are granted first come, first served: a waiting exclusive claim is
/// not overtaken by later keyed ones. Bookkeeping only, for use inside the
/// engine actor; the engine does the waiting.
struct UpdateGate {
    enum Claim: Equatable {
        case exclusive
        /// The keys of one update: a few. A list, not a set: the gate
        /// hashes each key where it looks it up, and building a set hashed
        /// them all once more for every update. ``UpdateGate/claim(for:)``
        /// names each key once; a key named twice is still held and given
        /// back once.
        case keys([Key])

        /// Two claims are equal when they hold the same keys, in any order.
        static func == (lhs: Claim, rhs: Claim) -> Bool {
            switch (lhs, rhs) {
            case (.exclusive, .exclusive): true
            case (.keys(let left), .keys(let right)): Set(left) == Set(right)
            default: false
            }
        }
    }

    /// What a keyed claim holds: an order token, or a transaction id. An
    /// enum, not a prefixed string, so that claiming builds no new strings.
    enum Key: Hashable {
        case token(String)
        case transaction(String)
    }

    private var exclusiveHeld = false
    private var heldKeys: Set<Key> = []
    private var keyedHolders = 0
    private var waiting: [(claim: Claim, continuation: Suspension<Void, Never>)] = []

    /// How many claims wait.
    var waitingCount: Int { waiting.count }

    /// The claim for one store update.
    static func claim(for update: TransactionUpdate) -> Claim {
        switch update.kind {
        case .purchased, .restored:
            guard let transaction = update.transaction, let own = transaction.orderToken else { return .exclusive }
            // A first purchase's transaction is its own original, and an
            // update answers the payment its transaction carries the token
            // of: almost always two keys, each hashed twice (held, given back).
            var keys: [Key] = [.token(own), .transaction(transaction.id)]
            if transaction.originalID != transaction.id { keys.append(.transaction(transaction.originalID)) }
            if let answering = update.orderToken, answering != own { keys.append(.token(answering)) }
            return .keys(keys)
        case .purchasing, .deferred, .interrupted, .scheduled, .cancelled, .failed:
            guard let token = update.orderToken else { return .exclusive }
            var keys: [Key] = [.token(token)]
            if let paymentID = update.paymentID { keys.append(.transaction(paymentID)) }
            return .keys(keys)
        case .revoked:
            return .exclusive
        }
    }

    /// Takes the claim if it is free and nobody waits before it.
    mutating func tryEnter(_ claim: Claim) -> Bool {
        waiting.isEmpty && takeIfFree(claim)
    }

    /// Queues a claim that ``tryEnter(_:)`` refused.
    mutating func wait(_ claim: Claim, _ continuation: Suspension<Void, Never>) {
        waiting.append((claim, continuation))
    }

    /// Gives the claim back; returns the waiters now holding theirs, to resume.
    mutating func leave(_ claim: Claim) -> [Suspension<Void, Never>] {
        switch claim {
        case .exclusive:
            exclusiveHeld = false
        case .keys(let keys):
            for key in keys { heldKeys.remove(key) }
            keyedHolders -= 1
        }
        var granted: [Suspension<Void, Never>] = []
        while let next = waiting.first, takeIfFree(next.claim) {
            waiting.removeFirst()
            granted.append(next.continuation)
        }
        return granted
    }

    /// Takes the claim if it is free. A keyed claim's keys are taken as they
    /// are checked, one hash each, and given back if one of them is held.
    private mutating func takeIfFree(_ claim: Claim) -> Bool {
        guard !exclusiveHeld else { return false }
        guard case .keys(let keys) = claim else {
            guard keyedHolders == 0 else { return false }
            exclusiveHeld = true
            return true
        }
        for (taken, key) in keys.enumerated() where !heldKeys.insert(key).inserted {
            // Held already, by this claim (a key it names twice) or another.
            if keys[..<taken].contains(key) { continue }
            for earlier in Set(keys[..<taken]) { heldKeys.remove(earlier) }
            return false
        }
        keyedHolders += 1
        return true
    }
}
