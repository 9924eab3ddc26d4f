import Foundation

extension JournalOrderStore {
    private enum Outcome {
        case queued, skipped, notReady, failed(PurchaseKitError)
    }

    /// What a record is about: the order it changes (nil when it changes
    /// none), and whether it ends that order's business (a `completed` save,
    /// open or straight into the archive, an archive move, a removal).
    struct Subject {
        var orderID: String?
        var endsOrder = false
        static let none = Subject(orderID: nil)
    }

    /// Applies a change to the index and queues its record in one critical
    /// section, so that the journal holds the changes in the order lookups saw
    /// them. `apply` returns false when there is nothing to write. A `durable`
    /// change returns once the flush that covers its record has returned; one
    /// with nothing to write (a spend already recorded, an order already
    /// removed) still waits for a flush, since the call that made the change
    /// it finds may be waiting for that flush itself: it must not return
    /// before the change it reports is durable.
    func commit(_ record: [UInt8], durable: Bool, about subject: Subject,
                _ apply: (inout JournalIndex) throws(PurchaseKitError) -> Bool) async throws(PurchaseKitError) {
        while true {
            do {
                if durable, try commitOnCallingThread(record, about: subject, apply) {
                    return
                } else if durable {
                    try await suspendThrowing { (waiter: JournalWriter.Waiter) in
                        switch enqueue(record, waiter: waiter, subject, apply) {
                        case .queued: break
                        // Nothing to write, but a flush to wait for: it comes
                        // after every record queued before, the change's own included.
                        case .skipped: writer.append([], needsFlush: true, waiter: waiter)
                        case .notReady: waiter.resume(throwing: JournalNotReady())
                        case .failed(let error): waiter.resume(throwing: error)
                        }
                    }
                } else {
                    switch enqueue(record, waiter: nil, subject, apply) {
                    case .queued, .skipped: break
                    case .notReady: throw JournalNotReady()
                    case .failed(let error): throw error
                    }
                }
                return
            } catch is JournalNotReady {
                try await ready()
            } catch {
                throw PurchaseKitError.wrap(error, as: .persistenceWriteFailed, "The order journal could not be written.",
                                            advice: "Check free space and storage health, then try again.")
            }
        }
    }

    /// Commits a durable change with no suspension when saves come one order
    /// at a time and the writer is idle: the caller claims the writer, then
    /// writes and flushes the record itself, and learns the outcome as the
    /// call's result. Returns false, having changed nothing, when it cannot.
    private func commitOnCallingThread(_ record: [UInt8], about subject: Subject,
                                       _ apply: (inout JournalIndex) throws(PurchaseKitError) -> Bool) throws(PurchaseKitError) -> Bool {
        let (claimed, outcome, snapshot) = state.withLock { s -> (JournalWriter.Batch?, Outcome, SnapshotWrite?) in
            guard case .loaded = s.phase, !s.isClosed, s.flushesOnCallersThread(about: subject.orderID),
                  var batch = writer.claimIfIdle() else { return (nil, .notReady, nil) }
            // From here the writer is claimed: the batch is written, and
            // flushed, whatever `apply` says.
            batch.needsFlush = true
            let (outcome, snapshot) = applyAndRecord(record, durable: true, subject, apply, in: &s) {
                batch.bytes.append(contentsOf: record)
            }
            return (batch, outcome, snapshot)
        }
        guard let claimed else { return false }
        let error = writer.writeClaimed(claimed)
        if let snapshot { startSnapshot(snapshot) }
        switch outcome {
        case .failed(let failure): throw failure
        case .queued: if let error { throw error }
        case .skipped, .notReady: break
        }
        return true
    }

    private func enqueue(_ record: [UInt8], waiter: JournalWriter.Waiter?, _ subject: Subject,
                         _ apply: (inout JournalIndex) throws(PurchaseKitError) -> Bool) -> Outcome {
        let (outcome, snapshot) = state.withLock { s -> (Outcome, SnapshotWrite?) in
            guard case .loaded = s.phase, !s.isClosed, !writer.hasFailed else { return (.notReady, nil) }
            return applyAndRecord(record, durable: waiter != nil, subject, apply, in: &s) {
                writer.append(record, needsFlush: waiter != nil, waiter: waiter)
            }
        }
        if let snapshot { startSnapshot(snapshot) }
        return outcome
    }

    /// The body of both critical sections above, under the lock: applies the
    /// change to the index, then, if there is something to write, hands the
    /// record to `place` (the writer's queue, or a batch the caller writes
    /// itself), counts it, notes it, and begins a snapshot when one is due.
    private func applyAndRecord(_ record: [UInt8], durable: Bool, _ subject: Subject,
                                _ apply: (inout JournalIndex) throws(PurchaseKitError) -> Bool,
                                in s: inout JournalState, place: () -> Void) -> (Outcome, SnapshotWrite?) {
        do throws(PurchaseKitError) {
            guard try apply(&s.index) else { return (.skipped, nil) }
        } catch {
            return (.failed(error), nil)
        }
        place()
        s.journalBytes += record.count
        s.noteRecord(about: subject.orderID, durable: durable, endsOrder: subject.endsOrder)
        guard s.wantsSnapshot(threshold: configuration.snapshotThreshold) else { return (.queued, nil) }
        return (.queued, beginSnapshot(&s))
    }

    /// Starts a new journal generation and returns the snapshot of everything
    /// before it, to be written in the background by ``startSnapshot(_:)``.
    /// Called under the lock, right after a record was queued, so that the
    /// snapshot holds exactly the records of the journals it replaces; the
    /// rotation is queued under the lock too, so that every later record goes
    /// to the new journal.
    func beginSnapshot(_ s: inout JournalState, then: (@Sendable (Result<Int, FileSystemError>) -> Void)? = nil) -> SnapshotWrite {
        s.snapshotInProgress = true
        s.generation += 1
        s.journalBytes = 0
        let generation = s.generation
        writer.run { context in context.rotate(to: generation) }
        var snapshot = SnapshotWrite(index: s.index, generation: generation, configuration: configuration) { [weak self] result in
            self?.snapshotFinished(result)
            then?(result)
        }
        // Stale once a reload begins: the index may hold records whose write failed.
        let loads = self.loads
        let load = loads.withLock { $0 }
        snapshot.isCurrent = { loads.withLock { $0 } == load }
        return snapshot
    }

    /// Hands a snapshot begun by ``beginSnapshot(_:then:)`` to the writer;
    /// outside the lock, because a writer without a thread writes it at once.
    func startSnapshot(_ snapshot: SnapshotWrite) {
        if !writer.start(snapshot) { snapshot.completion(.failure(FileSystemError(.write, errorNumber: EBADF, path: folder))) }
    }

    private func snapshotFinished(_ result: Result<Int, FileSystemError>) {
        state.withLock { s in
            s.snapshotInProgress = false
            if case .success(let size) = result { s.snapshotBytes = size }
        }
    }

    /// Returns once the store is loaded, loading it if no other call is.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the journal cannot be
    ///   read; the next call tries again.
    func ready() async throws(PurchaseKitError) {
        enum Role { case ready, load, wait, closed }
        while true {
            let role = state.withLock { s -> Role in
                if s.isClosed { return .closed }
                switch s.phase {
                case .loaded where !writer.hasFailed: return .ready
                case .loading: return .wait
                default:
                    s.phase = .loading
                    loads.withLock { $0 += 1 }
                    return .load
                }
            }
            switch role {
            case .ready:
                return
            case .closed:
                throw JournalWriter.closedError
            case .load:
                let result: Result<Void, PurchaseKitError>
                do throws(PurchaseKitError) {
                    result = .success(try await load())
                } catch {
                    result = .failure(error)
                }
                let waiters = state.withLock { s in
                    if case .failure = result { s.phase = .unloaded }
                    defer { s.loadWaiters = [] }
                    return s.loadWaiters
                }
                for waiter in waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
                return try result.get()
            case .wait:
                do {
                    try await suspendThrowing { (waiter: Suspension<Void, any Error>) in
                        let waits = state.withLock { s -> Bool in
                            guard case .loading = s.phase else { return false }
                            s.loadWaiters.append(waiter)
                            return true
                        }
                        if !waits { waiter.resume() }
                    }
                } catch {
                    throw PurchaseKitError.wrap(error, as: .persistenceReadFailed, "The order journal could not be read.",
                                                advice: "Check the storage, then try again.")
                }
            }
        }
    }
}
