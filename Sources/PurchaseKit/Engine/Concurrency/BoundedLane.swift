/// A first-in, first-out lane of jobs of which at most `limit` run at once:
/// what keeps the engine's background work (launch recovery, retry triggers,
/// deliveries after store updates, retry timers, restores) from all asking
/// the verifier at the same moment. Not
/// thread-safe: the engine's actor owns it, and it only decides; the engine
/// starts what it says.
struct BoundedLane<Job> {
    let limit: Int
    private(set) var running = 0
    private var waiting: [Job] = []
    private var head = 0

    init(limit: Int) {
        precondition(limit >= 1, "a lane runs at least one job")
        self.limit = limit
    }

    /// Offers a job: returns it when it may start now, or queues it.
    mutating func offer(_ job: Job) -> Job? {
        if running < limit {
            running += 1
            return job
        }
        waiting.append(job)
        return nil
    }

    /// A running job ended: returns the next one to start in its place, if any.
    mutating func ended() -> Job? {
        assert(running > 0, "a job ended that never started")
        guard head < waiting.count else {
            running -= 1
            waiting.removeAll(keepingCapacity: true)
            head = 0
            return nil
        }
        let next = waiting[head]
        head += 1
        return next
    }

    /// Drops every queued job (at shutdown) and returns them; running ones
    /// end on their own.
    mutating func dropQueued() -> [Job] {
        let dropped = Array(waiting[head...])
        waiting.removeAll()
        head = 0
        return dropped
    }
}
