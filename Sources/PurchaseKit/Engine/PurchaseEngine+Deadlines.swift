import Foundation

/// Why a timer's job runs: its deadline came, or the engine shut down first.
enum DeadlineFiring {
    case due
    case shutdown
}

/// A job a timer runs on the engine when its deadline comes, or at
/// shutdown if that comes first (a job that only acts when due returns on
/// `.shutdown`).
typealias DeadlineJob = @Sendable (isolated PurchaseEngine, DeadlineFiring) -> Void

/// The one task that sleeps for the whole ``DeadlineSchedule``.
struct DeadlineSleeper {
    /// When it wakes; never later than the schedule's earliest deadline.
    let wake: Date
    let serial: UInt64
    let task: Task<Void, Never>
}

extension PurchaseEngine {
    /// Sets a timer on the engine's clock: `job` runs on the engine at
    /// `deadline` (`.due`), or at ``shutdown()`` if that comes first
    /// (`.shutdown`), unless ``cancelDeadline(_:)`` comes before either.
    /// Without a deadline, only shutdown runs it: how a wait without a time
    /// limit still ends. A caller waiting on the store or the verifier is
    /// answered from here at shutdown, since a timeout can no longer end
    /// its wait then.
    func setDeadline(_ deadline: Date?, _ job: @escaping DeadlineJob) -> UInt64 {
        // After shutdown nothing is scheduled: id 0 names no timer.
        guard !isShutDown else { return 0 }
        // Before the new deadline, read on the clock as it is now, joins them.
        followClockSetBack()
        let id = deadlines.add(deadline, job)
        if deadline != nil { armSleeper() }
        return id
    }

    func cancelDeadline(_ id: UInt64?) {
        guard let id else { return }
        deadlines.cancel(id)
        // The sleeper is left as it is: waking early for nothing costs less
        // than a new task for every cancelled timeout.
    }

    /// Runs every timer's job with `.shutdown`, oldest first, so that the
    /// callers resume in the same order on every run; nothing is left set.
    func fireDeadlinesAtShutdown() {
        sleeper?.task.cancel()
        sleeper = nil
        for job in deadlines.takeAll() { job(self, .shutdown) }
    }

    /// Makes sure a sleeper wakes at the earliest deadline or before it. A
    /// sleeper that would wake too late is replaced; an early one is kept
    /// (it finds nothing due and sleeps again). One whose wake the clock has
    /// passed is replaced too: the wall clock was set forward past it, and it
    /// sleeps the time it measured when it began, so it could wake hours
    /// after a timeout set now.
    private func armSleeper() {
        guard let next = deadlines.earliest else { return }
        if let sleeper, sleeper.wake <= next, sleeper.wake > clock.now { return }
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
        followClockSetBack()
        for job in deadlines.takeDue(at: clock.now) { job(self, .due) }
        armSleeper()
    }

    /// Moves the timers back with a clock that was set back since they last
    /// read it. Their deadlines count time that passes (a store timeout, a
    /// retry's delay): left where they were, a clock set back a year would
    /// hold a purchase call waiting for its store timeout for a year. The
    /// time that passed between the two readings is not known, so a timer
    /// may run late by as much, never by more than its own duration.
    private func followClockSetBack() {
        let now = clock.now
        defer { timersReadClockAt = now }
        guard let last = timersReadClockAt, now < last else { return }
        deadlines.shift(by: now.timeIntervalSince(last))
        // Asleep for an interval measured on the clock before, it would wake late.
        sleeper?.task.cancel()
        sleeper = nil
    }

    /// The sleeper, when a timer is due now: ``waitUntilIdle()`` waits for it
    /// to run the due jobs. (The sleeper ends after one wake, so waiting for
    /// it never waits for a later deadline.)
    func sleeperWithDueTimers(at now: Date) -> Task<Void, Never>? {
        guard let earliest = deadlines.earliest, earliest <= now else { return nil }
        return sleeper?.task
    }
}
