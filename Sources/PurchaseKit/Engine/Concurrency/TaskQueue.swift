/// The payments in flight: at most one per (user, product), and at most
/// `limit` at once. A payment is in flight while its purchase call runs, and
/// after that call was answered (its store timeout, its cancellation) for as
/// long as the store is still taking it. Bookkeeping only; the engine does the waiting.
struct TaskQueue {
    struct Key: Hashable, Sendable {
        var userID: String
        var productID: String
    }

    /// A purchase call waiting for its turn, resumed with true when woken and
    /// false when it stopped waiting (its task was cancelled).
    struct Waiter {
        let id: UInt64
        let continuation: Suspension<Bool, Never>
    }

    /// Why a key is in flight: its purchase call runs, or the store is
    /// still taking its payment (`add` has not returned, and the payment has
    /// no outcome yet), or both. A key is in ``keys`` exactly while one holds.
    private struct Hold {
        var callRuns = false
        /// The order id of the payment the store is taking.
        var handing: String?

        var isEmpty: Bool { !callRuns && handing == nil }
    }

    let limit: Int
    /// One entry a key in flight, for both reasons: a purchase looks its key
    /// up once a step (a key hashes two strings), not once a reason.
    private var keys: [Key: Hold] = [:]
    private(set) var running = 0
    private var keyWaiters: [Key: [Waiter]] = [:]
    private var slotWaiters: [Waiter] = []
    private var lastWaiterID: UInt64 = 0

    /// A queue of `limit` slots whose table of keys is made with room for
    /// `room` keys (0: none reserved). The engine gives it more than
    /// `limit`, so that a removal moves few entries.
    init(limit: Int, room: Int = 0) {
        self.limit = limit
        keys.reserveCapacity(room)
    }

    func isBusy(_ key: Key) -> Bool { keys[key] != nil }

    /// Reserves the key for a purchase call if it is free: one hash when it is.
    mutating func tryReserve(_ key: Key) -> Bool {
        guard let held = keys.updateValue(Hold(callRuns: true), forKey: key) else { return true }
        keys[key] = held
        return false
    }

    /// A new id for a waiter.
    mutating func nextWaiterID() -> UInt64 {
        lastWaiterID += 1
        return lastWaiterID
    }

    /// What a purchase call waits for: its key to be free, or a slot.
    enum Turn {
        case key(Key)
        case slot
    }

    mutating func wait(for turn: Turn, _ waiter: Waiter) {
        switch turn {
        case .key(let key): keyWaiters[key, default: []].append(waiter)
        case .slot: slotWaiters.append(waiter)
        }
    }

    var hasFreeSlot: Bool { running < limit }

    mutating func takeSlot() { running += 1 }

    /// Takes a waiter out of the queue (its call was cancelled), if it is
    /// still waiting; the caller resumes it.
    mutating func removeWaiter(_ id: UInt64) -> Suspension<Bool, Never>? {
        if let index = slotWaiters.firstIndex(where: { $0.id == id }) {
            return slotWaiters.remove(at: index).continuation
        }
        for (key, waiters) in keyWaiters {
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { continue }
            var rest = waiters
            let waiter = rest.remove(at: index)
            keyWaiters[key] = rest.isEmpty ? nil : rest
            return waiter.continuation
        }
        return nil
    }

    /// The store starts taking the key's payment.
    mutating func startHanding(_ key: Key, orderID: String) { keys[key, default: Hold()].handing = orderID }

    /// The store took (or refused) the payment of order `orderID`, or the
    /// payment has its outcome; returns whom to wake. Does nothing for a
    /// payment no longer handed over (a later payment of the same key may be).
    mutating func endHanding(_ key: Key, orderID: String) -> [Suspension<Bool, Never>] {
        guard let position = keys.index(forKey: key), keys.values[position].handing == orderID else { return [] }
        keys.values[position].handing = nil
        return unhold(key, at: position)
    }

    /// Drops the key's entry once nothing holds it, and returns the calls
    /// waiting for it, to wake.
    private mutating func unhold(_ key: Key, at position: Dictionary<Key, Hold>.Index) -> [Suspension<Bool, Never>] {
        guard keys.values[position].isEmpty else { return [] }
        keys.remove(at: position)
        return wakeKeyWaiters(key)
    }

    /// Takes out the calls waiting for `key`; almost always none wait, and
    /// then the table is not looked up.
    private mutating func wakeKeyWaiters(_ key: Key) -> [Suspension<Bool, Never>] {
        guard !keyWaiters.isEmpty else { return [] }
        return (keyWaiters.removeValue(forKey: key) ?? []).map(\.continuation)
    }

    /// How many calls wait for their turn, for their key or for a slot.
    var waiterCount: Int { keyWaiters.values.reduce(slotWaiters.count) { $0 + $1.count } }

    /// Every waiter, taken out of the queue (the engine shuts down).
    mutating func removeAllWaiters() -> [Suspension<Bool, Never>] {
        defer {
            keyWaiters = [:]
            slotWaiters = []
        }
        return keyWaiters.keys.sorted { ($0.userID, $0.productID) < ($1.userID, $1.productID) }
            .flatMap { keyWaiters[$0] ?? [] }.map(\.continuation) + slotWaiters.map(\.continuation)
    }

    /// Ends a purchase call: frees its key and slot, and returns whom to wake.
    mutating func release(_ key: Key, hadSlot: Bool) -> [Suspension<Bool, Never>] {
        var wake: [Suspension<Bool, Never>] = []
        if let position = keys.index(forKey: key) {
            keys.values[position].callRuns = false
            wake = unhold(key, at: position)
        } else {
            wake = wakeKeyWaiters(key)
        }
        if hadSlot {
            running -= 1
            if !slotWaiters.isEmpty { wake.append(slotWaiters.removeFirst().continuation) }
        }
        return wake
    }
}
