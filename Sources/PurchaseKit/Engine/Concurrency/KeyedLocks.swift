/// Async mutual exclusion per key, for use inside one actor: the actor is
/// re-entrant at every `await`, so work on one order that spans several awaits
/// (persist, verify, persist, finish) takes that order's lock. Waiters are
/// served first come, first served; a release hands the lock straight to the
/// next waiter so nobody can barge in between.
struct KeyedLocks {
    private var held: Set<String> = []
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Takes the lock if it is free.
    mutating func tryAcquire(_ key: String) -> Bool {
        held.insert(key).inserted
    }

    /// Queues a waiter for a held lock.
    mutating func enqueue(_ key: String, _ continuation: CheckedContinuation<Void, Never>) {
        waiters[key, default: []].append(continuation)
    }

    /// Releases the lock, or hands it to the next waiter, who must then be resumed.
    mutating func release(_ key: String) -> CheckedContinuation<Void, Never>? {
        if var queue = waiters[key], !queue.isEmpty {
            let next = queue.removeFirst()
            waiters[key] = queue.isEmpty ? nil : queue
            return next
        }
        held.remove(key)
        return nil
    }
}

/// The payments in flight: at most one per (user, product), and at most
/// `limit` at once. Bookkeeping only; the engine does the waiting.
struct TaskQueue {
    struct Key: Hashable, Sendable {
        var userID: String
        var productID: String
    }

    let limit: Int
    private(set) var inFlight: Set<Key> = []
    private(set) var running = 0
    private var keyWaiters: [Key: [CheckedContinuation<Void, Never>]] = [:]
    private var slotWaiters: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = limit }

    func isBusy(_ key: Key) -> Bool { inFlight.contains(key) }

    mutating func reserve(_ key: Key) { inFlight.insert(key) }

    mutating func waitForKey(_ key: Key, _ continuation: CheckedContinuation<Void, Never>) {
        keyWaiters[key, default: []].append(continuation)
    }

    var hasFreeSlot: Bool { running < limit }

    mutating func takeSlot() { running += 1 }

    mutating func waitForSlot(_ continuation: CheckedContinuation<Void, Never>) {
        slotWaiters.append(continuation)
    }

    /// Ends a payment: frees its key and slot, and returns whom to wake.
    mutating func release(_ key: Key, hadSlot: Bool) -> [CheckedContinuation<Void, Never>] {
        inFlight.remove(key)
        var wake = keyWaiters.removeValue(forKey: key) ?? []
        if hadSlot {
            running -= 1
            if !slotWaiters.isEmpty { wake.append(slotWaiters.removeFirst()) }
        }
        return wake
    }
}
