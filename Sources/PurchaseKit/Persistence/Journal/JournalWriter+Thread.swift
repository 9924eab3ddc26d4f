import Foundation

/// The thread's side of ``JournalWriter``: its loop, and the writing of batches.
extension JournalWriter {
    private enum Next {
        case batch(Batch), job(@Sendable (inout Context) -> Void), begin(any BackgroundWork), step, wait, stop
    }

    static func run(_ initial: Context, queue: Locked<Queue>, wake: DispatchSemaphore) {
        var context = initial
        var background: (any BackgroundWork)?
        while true {
            let hasBackground = background != nil
            var idle: [CheckedContinuation<Void, Never>] = []
            let next = queue.withLock { q -> Next in
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
                    if q.items.isEmpty {
                        idle = q.idleWaiters
                        q.idleWaiters = []
                        q.writeWaitingBatch = false
                    }
                }
                return next
            }
            for waiter in idle { waiter.resume() }
            switch next {
            case .batch(let batch):
                write(batch, &context)
            case .job(let job):
                job(&context)
            case .begin(let work):
                background = work
            case .step:
                if background?.step(&context) == true { background = nil }
            case .wait:
                wake.wait()
            case .stop:
                context.closeJournal()
                return
            }
        }
    }

    /// Writes a batch with one call, flushes if any record in it must be
    /// durable, and answers its waiters.
    private static func write(_ batch: Batch, _ context: inout Context) {
        if let failure = context.failure {
            let error = Self.writeError(failure)
            for waiter in batch.waiters { waiter.resume(throwing: error) }
            return
        }
        let fileSystem = context.fileSystem
        do throws(FileSystemError) {
            if !batch.bytes.isEmpty {
                var bytes = batch.bytes
                if context.journal == nil { bytes = try openJournal(&context) + bytes }
                guard var journal = context.journal else { return }
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
            return
        }
        for waiter in batch.waiters { waiter.resume() }
    }

    /// Reserves room ahead of the journal's end, a chunk at a time, so that an
    /// append changes no file size and its `fdatasync` writes the data alone:
    /// about a third cheaper on ext4. A reservation that fails costs nothing
    /// but that speed; a reader takes the zeros past the last record for what
    /// they are.
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
            advice: "The change may or may not survive a restart; the store reloads from disk at its next call. "
                + "Check free space and storage health, then try again.")
    }
}
