import Foundation
import PurchaseKit

/// One thread that runs every job of a simulated world, one at a time, in the
/// order they were enqueued.
///
/// Every task of a run — the driver, the engine's background work and
/// timers, the actors of the store, the server and the order store — prefers
/// this executor, so the interleaving of a run is a function of its seed and
/// not of how the operating system schedules threads: a seed replays byte
/// for byte on an idle or a busy machine, with one core or many, and under
/// the thread sanitizer.
///
/// It is also the serial executor of the world's actors (the engine, the
/// store, the server, the driver's ``WorldIsolation``), and runs every job as
/// isolated to itself: only one job runs at a time, on its one thread, so
/// whatever runs here has them all to itself. A call from one of them to
/// another then runs on the spot instead of being queued as a job.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class SimulationExecutor: TaskExecutor, SerialExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `stopping` and `threadWaits` are only touched with
    // `condition` locked; `batch` and `batchHead` only on the executor's own
    // thread (its loop, and the jobs the loop runs).
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false
    private var threadWaits = false
    /// The jobs taken from `jobs` at once, run in order before the next take:
    /// one lock per batch instead of one per job, and the same order.
    private var batch: [UnownedJob] = []
    private var batchHead = 0

    init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        if threadWaits { condition.signal() }
        condition.unlock()
    }

    /// Runs `operation` and everything it starts on a fresh executor thread,
    /// and returns its result once it has ended. `operation` is handed the
    /// starter that the tasks it makes itself (the engine's included) must use.
    static func run<T: Sendable>(_ operation: @escaping @Sendable (any TaskStarter) async -> T) async -> T {
        await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
            let thread = Thread { done.resume(returning: drive(operation)) }
            thread.name = "fault-simulation"
            thread.start()
        }
    }

    /// Runs `operation` and everything it starts on a fresh executor driven
    /// by the calling thread, and returns once `operation` has ended and
    /// every job queued by then has run.
    static func drive<T: Sendable>(_ operation: @escaping @Sendable (any TaskStarter) async -> T) -> T {
        let executor = SimulationExecutor()
        let starter = Starter(executor: executor)
        let result = Locked<T?>(nil)
        Task(executorPreference: executor) {
            let value = await operation(starter)
            result.withLock { $0 = value }
            executor.stop()
        }
        executor.loop()
        // The task set it before it stopped the loop.
        return result.withLock { $0 }!
    }

    /// Runs jobs on the calling thread until stopped and drained.
    func loop() {
        let executor = asUnownedTaskExecutor()
        let serial = asUnownedSerialExecutor()
        while takeBatch() {
            while batchHead < batch.count {
                let job = batch[batchHead]
                batchHead += 1
                job.runSynchronously(isolatedTo: serial, taskExecutor: executor)
            }
        }
    }

    /// Moves every queued job to `batch`; false once stopped with nothing queued.
    private func takeBatch() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty {
            if stopping { return false }
            threadWaits = true
            condition.wait()
            threadWaits = false
        }
        batch.removeAll(keepingCapacity: true)
        batchHead = 0
        swap(&batch, &jobs)
        return true
    }

    /// Lets ``loop()`` return once the jobs already queued have run. Tasks left
    /// waiting (a purchase call a broken world never answers) stay suspended
    /// and are never resumed.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    /// Whether jobs other than the running one wait on this thread. Asked
    /// only by a job this executor runs, so on its own thread.
    private var hasReadyJobs: Bool {
        if batchHead < batch.count { return true }
        condition.lock()
        defer { condition.unlock() }
        return !jobs.isEmpty
    }

    struct Starter: SimulationTaskStarter {
        let executor: SimulationExecutor

        var serialExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

        func runReadyJobs() async {
            // The caller runs on this executor: each yield puts it behind
            // every job already queued, so when the queue holds nothing else,
            // every task that could make progress has made it.
            while executor.hasReadyJobs { await Task.yield() }
        }

        @discardableResult
        func start(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
            Task(executorPreference: executor) { await operation() }
        }
    }
}

/// Starts the tasks of a simulated world, and lets the world's driver wait
/// until every task that can make progress has made it.
protocol SimulationTaskStarter: TaskStarter {
    /// Returns once no task of the world is ready to run but the caller: what
    /// was resumed (a purchase call answered, a timer fired) has run as far as
    /// it can without the clock moving or another step.
    func runReadyJobs() async

    /// The serial executor of the world's thread, for the world's actors.
    var serialExecutor: UnownedSerialExecutor { get }
}

extension FaultSimulation {
    /// The serial executor of the run `starter` starts tasks for; nil where
    /// the run has no executor of its own (no task executors on the platform).
    static func serialExecutor(of starter: any TaskStarter) -> UnownedSerialExecutor? {
        (starter as? any SimulationTaskStarter)?.serialExecutor
    }
}

/// The isolation a run's driver works in: on the run's thread, the run's
/// serial executor, shared with the engine, the store and the server, so
/// that the driver's calls into them and their answers switch nothing.
/// Without task executors (older Apple platforms), a default actor's.
actor WorldIsolation {
    private nonisolated let actorExecutor: ActorExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { actorExecutor.executor }

    init(starter: any TaskStarter) {
        actorExecutor = ActorExecutor(FaultSimulation.serialExecutor(of: starter))
    }

    /// Runs `body` isolated to this actor: the driver's code, and everything
    /// it calls that runs where it is called from, on the run's executor.
    func run<T: Sendable>(_ body: @Sendable (isolated WorldIsolation) async -> T) async -> T {
        await body(self)
    }
}

extension FaultSimulation {
    /// Runs `operation` on a simulation executor of its own where the platform
    /// has task executors; elsewhere (Apple platforms before macOS 15 and iOS
    /// 18) on the global executor, where a replay is not guaranteed.
    static func onOwnExecutor<T: Sendable>(_ operation: @escaping @Sendable (any TaskStarter) async -> T) async -> T {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            return await SimulationExecutor.run(operation)
        }
        return await operation(DefaultTaskStarter())
    }
}
