import Foundation

/// The working side of ``JournalWriter``: the loop its thread runs (or its
/// callers run, when it has no thread), and the writing of batches.
extension JournalWriter {
    /// What the loop does next.
    enum Next {
        case batch(Batch), job(@Sendable (inout Context) -> Void), begin(any BackgroundWork), step, wait, stop
    }

    /// The loop's state: what the writer works with, and long work under way.
    /// The thread owns one; a writer without a thread keeps one under a lock.
    struct Loop {
        var context: Context
        var background: (any BackgroundWork)?

        /// Takes the next piece of work from the queue, or says to wait or stop.
        /// Resumes those waiting for the writer to be idle when it is.
        mutating func next(_ queue: Locked<Queue>) -> Next {
            let hasBackground = background != nil
            var idle: [Suspension<Void, Never>] = []
            let next = queue.withLock { q -> Next in
                // A caller writes a batch itself; it wakes the thread when it is done.
                if q.callerIsWriting, !hasBackground {
                    q.threadIsWaiting = true
                    return .wait
                }
                let next: Next
                switch q.items.first {
                case .batch(let batch)? where batch.canWait && q.items.count == 1 && !q.isStopped && !q.writeWaitingBatch:
                    next = hasBackground ? .step : .wait
                case .batch(let batch)?:
                    next = .batch(batch)
                case .job(let job)? where !hasBackground:
                    next = .job(job)
                case .background(let work)? where !hasBackground:
                    next = .begin(work)
                default:
                    next = hasBackground ? .step : q.isStopped ? .stop : .wait
                }
                switch next {
                case .batch, .job, .begin:
                    q.items.removeFirst()
                    q.isBusy = true
                case .step:
                    q.isBusy = true
                case .wait, .stop:
                    q.isBusy = false
                    if case .wait = next { q.threadIsWaiting = true }
                    idle = q.takeIdleWaitersIfEmpty()
                }
                return next
            }
            for waiter in idle { waiter.resume() }
            return next
        }

        /// Does one piece of work `next` returned (not `.wait` or `.stop`).
        mutating func perform(_ next: Next) {
            switch next {
            case .batch(let batch):
                JournalWriter.write(batch, &context)
            case .job(let job):
                job(&context)
            case .begin(let work):
                background = work
            case .step:
                if background?.step(&context) == true { background = nil }
            case .wait, .stop:
                break
            }
        }

        /// Runs until there is nothing to do; returns whether the writer stopped.
        mutating func drain(_ queue: Locked<Queue>) -> Bool {
            while true {
                let next = next(queue)
                switch next {
                case .wait:
                    return false
                case .stop:
                    context.closeJournal()
                    return true
                default:
                    perform(next)
                }
            }
        }
    }

    /// The thread's body: drain the queue, sleep until woken, again, until stopped.
    static func run(_ loop: Locked<Loop>, queue: Locked<Queue>, wake: DispatchSemaphore) {
        while !loop.withLock({ $0.drain(queue) }) { wake.wait() }
    }

    /// Writes a batch with one call, flushes if any record in it must be
    /// durable, and answers its waiters. Returns the error they were given, if any.
    @discardableResult
    static func write(_ batch: Batch, _ context: inout Context) -> PurchaseKitError? {
        if let failure = context.failure {
            context.dropped.append(batch.bytes)
            let error = Self.writeError(failure)
            for waiter in batch.waiters { waiter.resume(throwing: error) }
            return error
        }
        let fileSystem = context.fileSystem
        do throws(FileSystemError) {
            if !batch.bytes.isEmpty {
                // Noted first: a failure from here on loses them.
                context.unflushed.append(batch.bytes)
                var bytes = batch.bytes
                if context.journal == nil { bytes = try openJournal(&context) + bytes }
                guard var journal = context.journal else { return nil }
                reserve(bytes.count, in: &journal, context)
                // Marked first: after a failed write the file may hold part of the bytes.
                journal.hasUnflushedBytes = true
                context.journal = journal
                try fileSystem.write(bytes, to: journal.descriptor, path: journal.path)
                context.journal?.size += bytes.count
            }
            if batch.needsFlush { try context.flushJournal() }
        } catch {
            context.fail(error)
            let failure = Self.writeError(error)
            for waiter in batch.waiters { waiter.resume(throwing: failure) }
            return failure
        }
        for waiter in batch.waiters { waiter.resume() }
        return nil
    }

    /// Reserves room ahead of the journal's end, a chunk at a time, so that an
    /// append changes no file size and its `fdatasync` writes the data alone
    /// (see ``FileSystem/preallocate(_:length:path:)``): cheaper by a fifth to
    /// a third on ext4 than an append that grows the file. A reservation that
    /// fails costs nothing but that speed; a reader takes the zeros past the
    /// last record for what they are.
    private static func reserve(_ count: Int, in journal: inout OpenJournal, _ context: Context) {
        guard context.reservation > 0, journal.size + count > journal.reserved else { return }
        let wanted = (journal.size + count + context.reservation) / context.reservation * context.reservation
        if (try? context.fileSystem.preallocate(journal.descriptor, length: wanted, path: journal.path)) != nil {
            journal.reserved = wanted
        }
    }

    /// Creates the next journal file and returns its header record, to be written with the first batch.
    private static func openJournal(_ context: inout Context) throws(FileSystemError) -> Data {
        let generation = context.nextGeneration
        let path = context.folder + "/" + JournalFiles.journalName(generation)
        let descriptor = try context.fileSystem.createFile(atPath: path, mode: JournalFiles.fileMode)
        context.nextGeneration = generation + 1
        context.journal = OpenJournal(descriptor: descriptor, path: path)
        var header = ByteWriter(capacity: 32)
        JournalRecord.header(.journal, generation: generation, into: &header)
        return Data(header.bytes)
    }

    static func writeError(_ error: FileSystemError) -> PurchaseKitError {
        PurchaseKitError.writeFailed(
            error, "The order journal could not be written", orderID: nil,
            advice: "The change is not counted: at its next call the store reloads without what it wrote since its last good flush "
                + "(after a crash, the change may or may not come back). Check free space and storage health, then try again.")
    }
}
