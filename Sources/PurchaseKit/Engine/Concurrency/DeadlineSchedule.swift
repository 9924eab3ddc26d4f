import Foundation

/// Every timer of one engine, as plain values: store and verification
/// timeouts, delivery retries, payment expiries, the launch wait.
///
/// A timer may have no deadline: it then only waits for ``takeAll()``, which
/// the engine calls at shutdown (a launch wait without a time limit still
/// ends when the engine shuts down).
///
/// A timer is an entry (a deadline and a job), not a task: the engine keeps
/// one sleeping task for the whole schedule, woken at the earliest deadline
/// (see `PurchaseEngine+Deadlines.swift`). Starting and cancelling a timer
/// is a heap push and a dictionary removal, which matters on the purchase
/// path: every purchase sets a store timeout and two call timeouts and
/// cancels all three a moment later.
///
/// Due entries come out earliest first, and entries with the same deadline in
/// the order they were added, so a replay fires them in the same order.
struct DeadlineSchedule<Job> {
    private struct Key: Comparable {
        let deadline: Date
        let id: UInt64
        static func < (a: Key, b: Key) -> Bool { (a.deadline, a.id) < (b.deadline, b.id) }
    }

    /// A binary min-heap of keys. Cancelled entries stay in it until they
    /// reach the top, where they are dropped (their job is gone from `jobs`),
    /// or until they are half the heap, when it is rebuilt from the live ones.
    private var heap: [Key] = []
    private var jobs: [UInt64: (deadline: Date?, job: Job)] = [:]
    private var lastID: UInt64 = 0

    /// The number of timers set and not yet fired or cancelled.
    var count: Int { jobs.count }

    /// Sets a timer; the id cancels it. Without a deadline, the job waits for ``takeAll()``.
    mutating func add(_ deadline: Date?, _ job: Job) -> UInt64 {
        lastID += 1
        jobs[lastID] = (deadline, job)
        if let deadline {
            heap.append(Key(deadline: deadline, id: lastID))
            siftUp(heap.count - 1)
        }
        return lastID
    }

    /// Cancels a timer that has not fired; does nothing otherwise.
    mutating func cancel(_ id: UInt64) {
        guard jobs.removeValue(forKey: id) != nil else { return }
        if heap.count > 64, heap.count > 2 * jobs.count {
            heap = jobs.compactMap { id, entry in entry.deadline.map { Key(deadline: $0, id: id) } }
            for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        }
        // The top was live before: only the timer just cancelled can have left it dead.
        if heap.first?.id == id { dropCancelledTop() }
    }

    /// Moves every deadline by `interval` seconds, keeping their order.
    mutating func shift(by interval: TimeInterval) {
        heap = heap.map { Key(deadline: $0.deadline.addingTimeInterval(interval), id: $0.id) }
        jobs = jobs.mapValues { ($0.deadline?.addingTimeInterval(interval), $0.job) }
    }

    /// The earliest deadline of a timer still set.
    var earliest: Date? { heap.first?.deadline }

    /// Removes and returns every job due at `now`, earliest first.
    mutating func takeDue(at now: Date) -> [Job] {
        var due: [Job] = []
        while let top = heap.first, top.deadline <= now {
            popTop()
            if let entry = jobs.removeValue(forKey: top.id) { due.append(entry.job) }
        }
        dropCancelledTop()
        return due
    }

    /// Removes and returns every job still set, deadline or not, in the order
    /// they were added: at shutdown, each gets its last word.
    mutating func takeAll() -> [Job] {
        let all = jobs.sorted { $0.key < $1.key }.map(\.value.job)
        self = DeadlineSchedule()
        return all
    }

    /// Keeps the invariant that the top of the heap is a live timer, so
    /// `earliest` never names a cancelled one.
    private mutating func dropCancelledTop() {
        while let top = heap.first, jobs[top.id] == nil { popTop() }
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count, heap[left + 1] < heap[left] { smallest = left + 1 }
            guard heap[smallest] < heap[parent] else { return }
            heap.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
