import Foundation

/// A job a timer runs on the engine when its deadline comes.
typealias DeadlineJob = @Sendable (isolated PurchaseEngine) -> Void

/// The one task that sleeps for the whole ``DeadlineSchedule``.
struct DeadlineSleeper {
    /// When it wakes; never later than the schedule's earliest deadline.
    let wake: Date
    let serial: UInt64
    let task: Task<Void, Never>
}

extension PurchaseEngine {
    /// Sets a timer on the engine's clock: `job` runs on the engine at
    /// `deadline`, unless ``cancelDeadline(_:)`` comes first.
    func setDeadline(_ deadline: Date, _ job: @escaping DeadlineJob) -> UInt64 {
        // After shutdown nothing is scheduled: id 0 names no timer.
        guard !isShutDown else { return 0 }
        let id = deadlines.add(deadline, job)
        armSleeper()
        return id
    }

    func cancelDeadline(_ id: UInt64?) {
        guard let id else { return }
        deadlines.cancel(id)
        // The sleeper is left as it is: waking early for nothing costs less
        // than a new task for every cancelled timeout.
    }

    /// Registers how to answer a caller waiting on the store or the verifier
    /// if the engine shuts down first. Shutdown drops every timer, so a
    /// timeout can no longer end the wait: a store that never answered held
    /// ``start()`` or a restore for ever. Each registration is dropped by its
    /// owner with ``dropShutdownAnswer(_:)`` once the wait ends. Returns nil
    /// after shutdown (nothing is registered then).
    func answerAtShutdown(_ answer: @escaping @Sendable () -> Void) -> UInt64? {
        guard !isShutDown else { return nil }
        nextWorkID += 1
        shutdownAnswers[nextWorkID] = answer
        return nextWorkID
    }

    func dropShutdownAnswer(_ id: UInt64?) {
        guard let id else { return }
        shutdownAnswers[id] = nil
    }

    /// Makes sure a sleeper wakes at the earliest deadline or before it. A
    /// sleeper that would wake too late is replaced; an early one is kept
    /// (it finds nothing due and sleeps again).
    private func armSleeper() {
        guard let next = deadlines.earliest else { return }
        if let sleeper, sleeper.wake <= next { return }
        sleeper?.task.cancel()
        sleeperSerial += 1
        let serial = sleeperSerial
        let clock = self.clock
        let task = configuration.taskStarter.start { [weak self] in
            do { try await clock.sleep(until: next) } catch { return }
            await self?.deadlinesReached(serial: serial)
        }
        sleeper = DeadlineSleeper(wake: next, serial: serial, task: task)
    }

    /// Runs every job that is due, earliest first, then sleeps until the next.
    private func deadlinesReached(serial: UInt64) {
        guard sleeper?.serial == serial else { return }
        sleeper = nil
        for job in deadlines.takeDue(at: clock.now) { job(self) }
        armSleeper()
    }

    /// The sleeper, when a timer is due now: ``waitUntilIdle()`` waits for it
    /// to run the due jobs. (The sleeper ends after one wake, so waiting for
    /// it never waits for a later deadline.)
    func sleeperWithDueTimers(at now: Date) -> Task<Void, Never>? {
        guard let earliest = deadlines.earliest, earliest <= now else { return nil }
        return sleeper?.task
    }
}
