import Foundation

extension JournalOrderStore {
    private enum Outcome {
        case queued, skipped, notReady, failed(PurchaseKitError)
    }

    /// Applies a change to the index and queues its record in one critical
    /// section, so that the journal holds the changes in the order lookups saw
    /// them. `apply` returns false when there is nothing to write. A `durable`
    /// change returns once the flush that covers its record has returned.
    func commit(_ record: [UInt8], durable: Bool,
                _ apply: (inout JournalIndex) throws(PurchaseKitError) -> Bool) async throws(PurchaseKitError) {
        while true {
            do {
                if durable {
                    try await withCheckedThrowingContinuation { (waiter: JournalWriter.Waiter) in
                        switch enqueue(record, waiter: waiter, apply) {
                        case .queued: break
                        case .skipped: waiter.resume()
                        case .notReady: waiter.resume(throwing: JournalNotReady())
                        case .failed(let error): waiter.resume(throwing: error)
                        }
                    }
                } else {
                    switch enqueue(record, waiter: nil, apply) {
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

    private func enqueue(_ record: [UInt8], waiter: JournalWriter.Waiter?,
                         _ apply: (inout JournalIndex) throws(PurchaseKitError) -> Bool) -> Outcome {
        state.withLock { s -> Outcome in
            guard case .loaded = s.phase, !s.isClosed, !writer.hasFailed else { return .notReady }
            do throws(PurchaseKitError) {
                guard try apply(&s.index) else { return .skipped }
            } catch {
                return .failed(error)
            }
            writer.append(record, needsFlush: waiter != nil, waiter: waiter)
            s.journalBytes += record.count
            if s.wantsSnapshot(threshold: configuration.snapshotThreshold) { beginSnapshot(&s) }
            return .queued
        }
    }

    /// Starts a new journal generation and writes a snapshot of everything
    /// before it, in the background. Called under the lock, right after a
    /// record was queued, so that the snapshot holds exactly the records of
    /// the journals it replaces.
    func beginSnapshot(_ s: inout JournalState, then: (@Sendable (Result<Int, FileSystemError>) -> Void)? = nil) {
        s.snapshotInProgress = true
        s.generation += 1
        s.journalBytes = 0
        let generation = s.generation
        writer.run { context in context.rotate(to: generation) }
        let started = writer.start(SnapshotWrite(index: s.index, generation: generation, configuration: configuration) { [weak self] result in
            self?.snapshotFinished(result)
            then?(result)
        })
        if !started {
            s.snapshotInProgress = false
            then?(.failure(FileSystemError(.write, errorNumber: EBADF, path: folder)))
        }
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
                    try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
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
