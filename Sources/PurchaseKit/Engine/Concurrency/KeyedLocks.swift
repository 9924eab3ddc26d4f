/// Async mutual exclusion per key, for use inside one actor: the actor is
/// re-entrant at every `await`, so work on one order that spans several awaits
/// (persist, verify, persist, finish) takes that order's lock. Waiters are
/// served first come, first served; a release hands the lock straight to the
/// next waiter so nobody can barge in between.
struct KeyedLocks {
    private var held: Set<String> = []
    private var waiters: [String: [Suspension<Void, Never>]] = [:]

    /// Makes room for `count` keys held at once.
    mutating func reserveCapacity(_ count: Int) { held.reserveCapacity(count) }

    /// How many calls wait for a lock.
    var waitingCount: Int { waiters.values.reduce(0) { $0 + $1.count } }

    /// Takes the lock if it is free.
    mutating func tryAcquire(_ key: String) -> Bool {
        held.insert(key).inserted
    }

    /// Queues a waiter for a held lock.
    mutating func enqueue(_ key: String, _ continuation: Suspension<Void, Never>) {
        waiters[key, default: []].append(continuation)
    }

    /// Releases the lock, or hands it to the next waiter, who must then be resumed.
    mutating func release(_ key: String) -> Suspension<Void, Never>? {
        // Almost always nobody waits: then the queue is not looked up.
        if !waiters.isEmpty, var queue = waiters[key], !queue.isEmpty {
            let next = queue.removeFirst()
            waiters[key] = queue.isEmpty ? nil : queue
            return next
        }
        held.remove(key)
        return nil
    }
}
