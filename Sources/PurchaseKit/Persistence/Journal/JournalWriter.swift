import Foundation

/// The thread that makes the file-system calls of a ``JournalOrderStore``,
/// so that a blocking `fdatasync` does not hold one of the few threads of
/// Swift's cooperative pool while other saves wait, and the calls reach the
/// disk in the order the store queued them. The one exception: while saves
/// come one order at a time, a durable record saved while the thread is
/// idle is written and flushed by its caller, which would only have waited
/// for it (``claimIfIdle()``); the thread takes no work until that caller is
/// done.
///
/// **Group commit.** Records queued while the thread is busy are written
/// together by one `write` and made durable by one `fdatasync`, so that many
/// saves in flight share a flush: the more that wait, the cheaper each one.
/// A record whose save must be durable before it returns carries a waiter,
/// resumed once the flush that covers it has returned. A record that may be
/// acknowledged before its flush (see ``JournalOrderStore``) does not wake
/// the thread: it waits, in memory, for the next record that does (or a
/// flush, a snapshot, ``waitUntilIdle()``, the end of the thread), and is
/// written and flushed with it, so that it costs no call of its own.
///
/// After a failed write or flush the journal file is in an unknown state: the
/// thread stops writing to it and fails every record queued behind, until the
/// store has reloaded from disk and calls ``Context/reset(nextGeneration:)``,
/// which starts a new journal file.
final class JournalWriter: Sendable {
    typealias Waiter = Suspension<Void, any Error>

    /// Long work done a step at a time, so that records queued meanwhile are
    /// written between the steps instead of after the end.
    protocol BackgroundWork: Sendable {
        /// Does one step; returns true when the work is finished.
        mutating func step(_ context: inout Context) -> Bool
    }

    /// Records queued together, written by one call.
    struct Batch: Sendable {
        var bytes = Data()
        var needsFlush = false
        var waiters: [Waiter] = []

        /// Nothing in it asks for a flush or waits: it can wait for the next batch.
        var canWait: Bool { !needsFlush && waiters.isEmpty }
    }

    enum Item: Sendable {
        case batch(Batch)
        case job(@Sendable (inout Context) -> Void)
        case background(any BackgroundWork)
    }

    struct Queue: Sendable {
        var items: [Item] = []
        var threadIsWaiting = false
        var isBusy = false
        var isStopped = false
        var hasFailed = false
        /// Someone waits for the thread to be idle: write a batch that could wait.
        var writeWaitingBatch = false
        /// A caller writes a batch itself (see ``claimIfIdle()``):
        /// the thread takes no work until it is done.
        var callerIsWriting = false
        var idleWaiters: [Suspension<Void, Never>] = []

        /// When nothing is queued, hands over those waiting for the writer to
        /// be idle, for the caller to resume outside the lock; else none.
        mutating func takeIdleWaitersIfEmpty() -> [Suspension<Void, Never>] {
            guard items.isEmpty else { return [] }
            writeWaitingBatch = false
            defer { idleWaiters = [] }
            return idleWaiters
        }
    }

    let queue = Locked(Queue())
    let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// The loop's state. The thread holds the lock while it drains; a caller
    /// holds it while it writes a batch itself (``writeClaimed(_:)``)
    /// or, without a thread, while it runs the loop right after queueing.
    private let loop: Locked<Loop>
    private let hasThread: Bool

    /// Starts the thread; or, with `onCallingThread`, starts none, and every
    /// call does its file-system work before it returns. That suits a caller
    /// that makes one call at a time and must see the same calls in the same
    /// order every run (the fault simulation's single-thread executor), not an
    /// app: the caller blocks in every flush.
    init(fileSystem: any FileSystem, folder: String, reservation: Int, onCallingThread: Bool = false) {
        let loop = Locked(Loop(context: Context(fileSystem: fileSystem, folder: folder, reservation: reservation, queue: queue)))
        self.loop = loop
        hasThread = !onCallingThread
        guard !onCallingThread else { return }
        let thread = Thread { [queue, wake, finished] in
            Self.run(loop, queue: queue, wake: wake)
            finished.signal()
        }
        thread.name = "PurchaseKit.JournalOrderStore"
        thread.start()
    }

    /// Without a thread, does what is queued now.
    private func drainOnCallingThread() {
        guard !hasThread else { return }
        let queue = self.queue
        loop.withLock { _ = $0.drain(queue) }
    }

    deinit {
        stop()
    }

    /// Whether a write or flush failed since the last reload.
    var hasFailed: Bool { queue.withLock { $0.hasFailed } }

    // MARK: Queueing

    /// Queues journal bytes. With a `waiter`, it is resumed once they are
    /// durable, or with the error that prevented it.
    func append(_ bytes: [UInt8], needsFlush: Bool, waiter: Waiter?) {
        enqueue(wake: needsFlush || waiter != nil) { items in
            if case .batch(var batch) = items.last {
                items.removeLast()
                batch.bytes.append(contentsOf: bytes)
                batch.needsFlush = batch.needsFlush || needsFlush
                if let waiter { batch.waiters.append(waiter) }
                items.append(.batch(batch))
            } else {
                items.append(.batch(Batch(bytes: Data(bytes), needsFlush: needsFlush, waiters: waiter.map { [$0] } ?? [])))
            }
        }
    }

    /// Claims the writer for a caller that writes its durable record itself,
    /// when the thread is idle and nothing but one batch of records that
    /// could wait is queued. That batch is taken out of the queue and
    /// returned, for the caller to add its record to and pass to
    /// ``writeClaimed(_:)``, which it must call next; nil when the writer
    /// cannot be claimed, and nothing changed. The thread takes no work
    /// until the caller is done, and records queued meanwhile wait for it,
    /// so that they reach the disk in the order they were queued.
    ///
    /// Handing one durable record to the thread and back costs two thread
    /// wake-ups, about as long as the `fdatasync` itself on a small machine;
    /// when saves come one at a time there is no group to gather. The caller
    /// learns the outcome as the result of ``writeClaimed(_:)``: nothing
    /// waits on a continuation, so no job is queued to resume it, and no
    /// other pool thread is woken for a job that the caller's own thread is
    /// about to run.
    ///
    /// The caller blocks for one flush on a thread of Swift's cooperative
    /// pool. That is only cheap when nothing else needs that thread, which
    /// the writer cannot see (where the pool cannot grow, as on Linux, the
    /// work that makes the next saves stalls meanwhile, and with it group
    /// commit): the store claims the writer only while its saves come one
    /// order at a time (see ``JournalState/lastDurableOrder``).
    func claimIfIdle() -> Batch? {
        guard hasThread else { return nil }
        return queue.withLock { q -> Batch? in
            guard q.threadIsWaiting, !q.callerIsWriting, !q.isStopped, !q.hasFailed, q.items.count <= 1 else { return nil }
            var claimed = Batch()
            if let first = q.items.first {
                guard case .batch(let waiting) = first else { return nil }
                claimed = waiting
                q.items.removeAll(keepingCapacity: true)
            }
            q.callerIsWriting = true
            q.isBusy = true
            return claimed
        }
    }

    /// Writes a batch on the calling thread, the writer claimed by
    /// ``claimIfIdle()``, flushing it if it needs it, answers its waiters,
    /// and hands the writer back: the thread is woken for whatever was
    /// queued meanwhile. Returns the error that kept the batch from being
    /// durable, if any.
    @discardableResult
    func writeClaimed(_ batch: Batch) -> PurchaseKitError? {
        let error = loop.withLock { Self.write(batch, &$0.context) }
        let (wakesThread, idle) = queue.withLock { q -> (Bool, [Suspension<Void, Never>]) in
            q.callerIsWriting = false
            q.isBusy = false
            let idle = q.takeIdleWaitersIfEmpty()
            guard (!q.items.isEmpty || q.isStopped), q.threadIsWaiting else { return (false, idle) }
            q.threadIsWaiting = false
            return (true, idle)
        }
        if wakesThread { wake.signal() }
        for waiter in idle { waiter.resume() }
        return error
    }

    /// Runs `job` on the thread, after everything queued before it.
    func run(_ job: @escaping @Sendable (inout Context) -> Void) {
        enqueue { $0.append(.job(job)) }
    }

    /// Runs `job` on the thread and returns its result, or nil when the writer was stopped.
    func perform<Value: Sendable>(_ job: @escaping @Sendable (inout Context) -> Value) async -> Value? {
        await suspend { (continuation: Suspension<Value?, Never>) in
            let box = OneShotResume(continuation)
            let accepted = enqueue { $0.append(.job { context in box.resume(job(&context)) }) }
            if !accepted { box.resume(nil) }
        }
    }

    /// Starts long work; records queued after it are written while it runs.
    /// Returns false when the writer was stopped and the work will never run.
    @discardableResult
    func start(_ work: any BackgroundWork) -> Bool {
        enqueue { $0.append(.background(work)) }
    }

    /// Returns once everything queued before is written and flushed.
    func flush() async throws {
        try await suspendThrowing { (waiter: Waiter) in
            append([], needsFlush: true, waiter: waiter)
        }
    }

    /// Returns once the thread has nothing left to do.
    func waitUntilIdle() async {
        await suspend { continuation in
            let (isIdle, wake) = queue.withLock { q -> (Bool, Bool) in
                if q.items.isEmpty, !q.isBusy { return (true, false) }
                q.idleWaiters.append(continuation)
                q.writeWaitingBatch = true
                defer { q.threadIsWaiting = false }
                return (false, q.threadIsWaiting)
            }
            if wake { self.wake.signal() }
            drainOnCallingThread()
            if isIdle { continuation.resume() }
        }
    }

    /// Lets the thread finish what is queued, then end. Later work is refused.
    func stop() {
        let signal = queue.withLock { q -> Bool in
            guard !q.isStopped else { return false }
            q.isStopped = true
            defer { q.threadIsWaiting = false }
            return q.threadIsWaiting
        }
        if signal { wake.signal() }
        drainOnCallingThread()
    }

    /// Drops the records not written yet, as the death of the process would,
    /// and stops. Their waiters learn that nothing was written.
    func discardAndStop() {
        let dropped = queue.withLock { q -> [Item] in
            let batches = q.items.filter { if case .batch = $0 { return true } else { return false } }
            q.items.removeAll { if case .batch = $0 { return true } else { return false } }
            return batches
        }
        for case .batch(let batch) in dropped {
            for waiter in batch.waiters { waiter.resume(throwing: Self.closedError) }
        }
        stop()
    }

    /// Stops the thread and returns once it has ended.
    func stopAndWait() async {
        stop()
        await waitUntilEnded()
    }

    /// Returns once the thread has ended (at once without a thread).
    func waitUntilEnded() async {
        guard hasThread else { return }
        let finished = self.finished
        await suspend { (continuation: Suspension<Void, Never>) in
            // The wait blocks, so it gets a thread of its own, never one of the cooperative pool.
            Thread {
                finished.wait()
                finished.signal()
                continuation.resume()
            }.start()
        }
    }

    @discardableResult
    private func enqueue(wake wakesThread: Bool = true, _ add: (inout [Item]) -> Void) -> Bool {
        let signal = queue.withLock { q -> Bool? in
            guard !q.isStopped else { return nil }
            add(&q.items)
            // A caller writing a batch itself wakes the thread when it is done.
            guard wakesThread, !q.callerIsWriting else { return false }
            defer { q.threadIsWaiting = false }
            return q.threadIsWaiting
        }
        guard let signal else {
            // Refused after the stop: a waiting save learns that nothing was written.
            var items: [Item] = []
            add(&items)
            for case .batch(let batch) in items {
                for waiter in batch.waiters { waiter.resume(throwing: Self.closedError) }
            }
            return false
        }
        if signal { wake.signal() }
        drainOnCallingThread()
        return true
    }

    static let closedError = PurchaseKitError(
        .persistenceWriteFailed, "The order store was closed; nothing more is written.",
        advice: "Open a new store on the same directory.")
}

/// Resumes a continuation at most once, from whichever side gets there first.
/// Copies share the continuation.
private struct OneShotResume<Value: Sendable>: Sendable {
    private let continuation: Locked<Suspension<Value, Never>?>

    init(_ continuation: Suspension<Value, Never>) { self.continuation = Locked(continuation) }

    func resume(_ value: Value) {
        let taken = continuation.withLock { waiting in
            defer { waiting = nil }
            return waiting
        }
        taken?.resume(returning: value)
    }
}
