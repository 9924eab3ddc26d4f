/// Async mutual exclusion per key, for use inside one actor: the actor is
/// re-entrant at every `await`, so work on one order that spans several awaits
/// (persist, verify, persist, finish) takes that order's lock. Waiters are
/// served first come, first served; a release hands the lock straight to the
/// next waiter so nobody can barge in between.
///
/// A purchase takes its order's lock five times. A released key keeps its
/// entry, marked free, until a sweep: taking it again is one lookup, and a
/// release removes nothing (a removal from a hash table moves, and hashes
/// again, the keys after it). The sweep drops the free entries once they are
/// most of the table, so it costs a few lookups per release, and the table
/// stays a few times the locks held.
struct KeyedLocks {
    /// The keys locked since the last sweep: true while held.
    private var entries: [String: Bool] = [:]
    private var held = 0
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// How many calls wait for a lock.
    var waitingCount: Int { waiters.values.reduce(0) { $0 + $1.count } }

    /// Takes the lock if it is free.
    mutating func tryAcquire(_ key: String) -> Bool {
        let wasHeld = Self.take(&entries[key, default: false])
        if wasHeld { return false }
        held += 1
        return true
    }

    /// Marks an entry held; returns whether it was already.
    private static func take(_ entry: inout Bool) -> Bool {
        defer { entry = true }
        return entry
    }

    /// Queues a waiter for a held lock.
    mutating func enqueue(_ key: String, _ continuation: CheckedContinuation<Void, Never>) {
        waiters[key, default: []].append(continuation)
    }

    /// Releases the lock, or hands it to the next waiter, who must then be resumed.
    mutating func release(_ key: String) -> CheckedContinuation<Void, Never>? {
        // Almost always nobody waits: then the queue is not looked up.
        if !waiters.isEmpty, var queue = waiters[key], !queue.isEmpty {
            let next = queue.removeFirst()
            waiters[key] = queue.isEmpty ? nil : queue
            return next
        }
        guard let index = entries.index(forKey: key), entries.values[index] else { return nil }
        entries.values[index] = false
        held -= 1
        if entries.count >= 4 * held + 256 { sweep() }
        return nil
    }

    /// Keeps the held entries only, in a table with room for the entries
    /// until the next sweep, so that it does not grow (and hash every key
    /// again) meanwhile.
    private mutating func sweep() {
        var kept = [String: Bool](minimumCapacity: 5 * held + 256)
        for (key, isHeld) in entries where isHeld { kept[key] = true }
        entries = kept
    }
}
