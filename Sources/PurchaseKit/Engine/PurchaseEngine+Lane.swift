import Foundation

/// One piece of background work on one order, waiting for or holding a
/// place in the engine's lane.
struct LaneJob: Sendable {
    enum Kind: Sendable {
        /// Steps the order with this event (a delivery or a finish after a
        /// store update, a retry timer, a restore).
        case drive(OrderEvent)
        /// What launch owes a loaded order, decided when its turn comes.
        case recovery
        /// A retry trigger's delivery, decided when its turn comes.
        case retry
    }

    let orderID: String
    let kind: Kind
    /// Counted down when the job has ended, or was dropped at shutdown: the
    /// caller waiting for a batch of jobs (launch recovery, a retry trigger)
    /// never hangs.
    let batch: Countdown?
}

extension PurchaseEngine {
    /// Runs background work on one order as engine work, in the engine's one
    /// lane: at most ``PurchaseEngine/Configuration/Limits/maximumConcurrentDeliveries``
    /// jobs at once, whatever started them (launch recovery, retry triggers,
    /// store updates, retry timers, restores); the rest wait their turn, first
    /// in, first out. A job ends by starting the next one inside its own work,
    /// so ``waitUntilIdle()`` never sees a queued job with no work running.
    func spawnDelivery(orderID: String, _ event: OrderEvent) {
        enqueue(LaneJob(orderID: orderID, kind: .drive(event), batch: nil))
    }

    /// Runs `kind` for every order, in order, through the lane, and returns
    /// once every one has ended. What an order is owed is decided just before
    /// its turn, so it sees the order as it stands then.
    func runInLane(_ orderIDs: [String], _ kind: LaneJob.Kind) async {
        let batch = Countdown(orderIDs.count)
        for orderID in orderIDs {
            enqueue(LaneJob(orderID: orderID, kind: kind, batch: batch))
        }
        await batch.wait()
    }

    /// Drops the queued jobs at shutdown, answering whoever waits for them;
    /// running ones end on their own.
    func dropQueuedLaneJobs() {
        for job in lane.dropQueued() { job.batch?.jobEnded() }
    }

    private func enqueue(_ job: LaneJob) {
        guard !isShutDown else {
            job.batch?.jobEnded()
            return
        }
        if let admitted = lane.offer(job) { start(admitted) }
    }

    /// Starts `job`, or, when its order is owed nothing now, answers it and
    /// moves on to the next queued job, without a task for nothing (a launch
    /// may load many orders that only wait for the store).
    private func start(_ job: LaneJob) {
        var next: LaneJob? = job
        while let job = next {
            if !isShutDown, let work = work(for: job) {
                spawn { engine in
                    await work(engine)
                    job.batch?.jobEnded()
                    await engine.laneJobEnded()
                }
                return
            }
            job.batch?.jobEnded()
            next = lane.ended()
        }
    }

    private func laneJobEnded() {
        if let next = lane.ended() { start(next) }
    }

    /// What `job` does, decided now that its turn has come; nil when its
    /// order is owed nothing.
    private func work(for job: LaneJob) -> (@Sendable (PurchaseEngine) async -> Void)? {
        let orderID = job.orderID
        switch job.kind {
        case .drive(let event):
            return { engine in await engine.drive(orderID: orderID, event) }
        case .recovery:
            return recoveryWork(for: orderID)
        case .retry:
            guard let order = orders[orderID], let event = machine.retryEvent(for: order) else { return nil }
            return { engine in await engine.drive(orderID: orderID, event) }
        }
    }

    /// What launch owes one loaded order, if anything, as the machine decides it.
    private func recoveryWork(for orderID: String) -> (@Sendable (PurchaseEngine) async -> Void)? {
        guard let order = orders[orderID] else { return nil }
        switch machine.launchWork(for: order, now: clock.now, matchingWindow: configuration.policies.reconciler.matchingWindow,
                                  paymentsWaitUnmatched: !unplacedTransactions.isEmpty) {
        case .drive(let event):
            return { engine in await engine.drive(orderID: orderID, event) }
        case .archive:
            return { engine in await engine.archive(orderID: orderID) }
        case .watchExpiry:
            scheduleExpiry(of: order)
            return nil
        case .none:
            return nil
        }
    }
}
