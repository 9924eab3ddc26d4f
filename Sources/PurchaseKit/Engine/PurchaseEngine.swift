import Foundation

/// The one object an app holds: it runs every purchase from order to finished
/// transaction, recovers what a killed process left behind, retries deliveries,
/// restores, answers entitlement queries and broadcasts events.
///
/// ```swift
/// let engine = PurchaseEngine(configuration: .init(
///     paymentQueue: store, receiptVerifier: myServer,
///     orderStore: try JournalOrderStore(directory: ordersURL)))
/// try await engine.start()          // at launch, before any UI
/// let result = try await engine.purchase(productID: "coins.100", user: "u-42")
/// ```
///
/// Decisions live in ``OrderStateMachine`` and ``Reconciler``; the engine
/// performs their actions (persist first, then talk to the verifier or the
/// store) and never moves an order outside ``OrderTransitionTable``.
public actor PurchaseEngine {
    /// A default actor's executor, unless a simulation gives it its own.
    private nonisolated let actorExecutor: ActorExecutor
    /// The serial executor the engine runs on: in an app, a default actor's.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { actorExecutor.executor }
    let configuration: Configuration
    /// The order store, when it saves an order into the archive in one change (see ``ArchivingOrderStore``).
    let archivingStore: (any ArchivingOrderStore)?
    let machine: OrderStateMachine

    // The engine's state is a class's stored properties, and Swift checks
    // every access to those at run time (a thread-local access set), in case
    // two overlap. Only the actor's own synchronous code touches these, and
    // none can be passed `inout` across an `await`: a release build skips
    // the check on the ones a purchase reads and writes (the checks were
    // about 3 % of its instructions, and it takes 5.5 % fewer without them);
    // debug builds, where the test suite runs, keep it.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var random: SeededRandomNumberGenerator
    var tokens: OrderTokenMinter

    /// The open orders, by id: the engine's working set.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var orders = OpenOrders()
    var started = false
    /// The second and later ``start()`` calls made while the first one
    /// loads; nil when no launch is under way.
    var launchWaiters: [Suspension<OrderLoadReport, any Error>]?
    /// Set by ``shutdown()``: no timer, work or store update is taken on after it.
    var isShutDown = false
    var currentUserID: String?
    var products: [String: StoreProduct] = [:]

    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var orderLocks = KeyedLocks()
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var updateGate = UpdateGate()
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var taskQueue: TaskQueue
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var calls = WaitingCalls()
    /// All background work on orders, bounded (see `PurchaseEngine+Lane.swift`).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var lane: BoundedLane<LaneJob>
    var subscribers: [UInt64: AsyncStream<PurchaseEvent>.Continuation] = [:]
    var nextSubscriberID: UInt64 = 0
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var work: [UInt64: Task<Void, Never>] = [:]
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var nextWorkID: UInt64 = 0
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var timers: [String: RetryTimer] = [:]
    /// Saves of an order that failed in a row, for the backoff of the retries
    /// they schedule (see `PurchaseEngine+Drive.swift`); dropped at the next save that works.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var failedSaveStreaks: [String: Int] = [:]
    /// Paid transactions the store holds that the engine could not place on
    /// an order yet: the order store could not say which order holds them
    /// (``Reconciler/Match/undetermined``), or the order's save failed. The
    /// store replays them. While there are any, launch archives no expired
    /// payment, since one of them may be its late charge.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var unplacedTransactions: Set<String> = []
    /// Revocations that reached the engine before the payment they take
    /// back (updates come in any order), by transaction id: applied as soon
    /// as that transaction is placed on an order, so that the order ends
    /// revoked, as it does when the updates come in order.
    var earlyRevocations: [String: StoreTransaction] = [:]

    /// The transaction is on a saved order now (see ``unplacedTransactions``).
    /// Almost always there are none waiting: no id is hashed then.
    func markPlaced(_ transactionID: String) {
        if !unplacedTransactions.isEmpty { unplacedTransactions.remove(transactionID) }
    }
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var deadlines = DeadlineSchedule<DeadlineJob>()
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var sleeper: DeadlineSleeper?
    var sleeperSerial: UInt64 = 0
    /// The latest time the timers read on the clock: a reading earlier than
    /// it means the clock was set back (see `PurchaseEngine+Deadlines.swift`).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var timersReadClockAt: Date?
    var loadProblems: [PurchaseKitError] = []
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var counters = Diagnostics()
    /// What the store reports to; it forwards to this engine.
    let queueObserver = EngineQueueObserver()
    var promotions = PromotedPurchaseBook()
    /// Customer info subscribers and the renewal states last heard from the store.
    var customerWatch = CustomerWatch()

    /// Counts that show the engine kept its promises; the fault simulation reads them.
    /// A test hook: `@_spi(Testing) import PurchaseKit` to see it.
    @_spi(Testing) public struct Diagnostics: Sendable, Equatable {
        /// Moves refused by the transition table. Always zero unless there is a bug.
        public var invalidTransitionsAttempted = 0
        /// Store updates ignored as duplicate, late or out of order.
        public var staleUpdatesIgnored = 0
        /// Verifier calls made.
        public var verificationCalls = 0
        /// Store `finish` calls made.
        public var finishCalls = 0
    }

    struct RetryTimer {
        let deadline: Date
        let token: UInt64
        let event: OrderEvent
        /// The timer in ``deadlines``.
        let deadlineID: UInt64
    }

    /// Creates an engine. Call ``start()`` at launch before anything else.
    ///
    /// - Throws: ``PurchaseKitError/Code/invalidConfiguration`` naming the bad field.
    public init(configuration: Configuration) throws(PurchaseKitError) {
        try configuration.validate()
        self.configuration = configuration
        self.archivingStore = (configuration.orderStore as? any ArchivingOrderStore).flatMap { $0.savesIntoArchive ? $0 : nil }
        self.actorExecutor = ActorExecutor(configuration.executor)
        self.machine = OrderStateMachine(
            retryPolicy: configuration.policies.retryPolicy,
            finishesAfterDelivery: configuration.policies.finishPolicy == .afterDelivery)
        var system = SystemRandomNumberGenerator()
        self.random = SeededRandomNumberGenerator(seed: configuration.jitterSeed ?? system.next())
        self.tokens = OrderTokenMinter(seed: configuration.orderTokenSeed)
        // The tables of orders in flight gain and lose an entry at every
        // purchase. Swift's hash tables probe linearly, and a removal rehashes
        // the entries after it in its run of the table, a run that grows with
        // the load: at 64 in flight, 21 to 30 of a purchase's 140 string hashes
        // were such moves. Room for four times the purchases that may be in
        // flight keeps the runs short (32 entries at the default limit, 1,024
        // at most; the open-order index, about two keys an order, twice that).
        let room = configuration.limits.roomForOrdersInFlight
        self.taskQueue = TaskQueue(limit: configuration.limits.maximumConcurrentPurchases, room: room)
        self.lane = BoundedLane(limit: configuration.limits.maximumConcurrentDeliveries)
        orders.reserveCapacity(room)
        orderLocks.reserveCapacity(room)
        calls.reserveCapacity(room)
        timers.reserveCapacity(room)
    }

    var clock: any PurchaseClock { configuration.clock }
    var store: any OrderStore { configuration.orderStore }
    var queue: any PaymentQueue { configuration.paymentQueue }

    /// The engine's counters (a test hook, `@_spi(Testing)`).
    @_spi(Testing) public var diagnostics: Diagnostics { counters }

    /// The user new, unattributed purchases (another device, store-initiated)
    /// are credited to. Set it at login; nil (or an empty id) when nobody is logged in.
    public func setCurrentUser(_ userID: String?) {
        currentUserID = userID
    }

    // MARK: Launch

    /// Loads the saved orders, attaches to the store (which replays the
    /// transactions a killed process left unfinished), and starts recovering:
    /// owed deliveries are retried, delivered transactions finished, resting
    /// orders archived. Returns once recovery has been started; await
    /// `waitUntilIdle()` (a test hook, `@_spi(Testing)`) to wait for it to finish.
    ///
    /// - Returns: the load report; documents that could not be read are in its `problems`.
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the store cannot be read at all.
    ///   ``PurchaseKitError/Code/engineShutDown`` when ``shutdown()`` ran before or during the launch.
    @discardableResult
    public func start() async throws -> OrderLoadReport {
        try ensureRunning()
        guard !started else { return OrderLoadReport(orders: Array(orders.values), problems: loadProblems) }
        // A call made while another one loads waits for that launch and gets
        // its answer. Both used to load: the later load replaced orders the
        // first launch had moved on meanwhile with their saved copies (a
        // delivered and archived order back to `purchasing`, to expire and
        // be saved `failed`), and both attached and recovered.
        if launchWaiters != nil {
            log(.debug, "start() called while the engine starts; it waits for that launch")
            return try await suspendThrowing { launchWaiters?.append($0) }
        }
        launchWaiters = []
        let result: Result<OrderLoadReport, any Error>
        do {
            result = .success(try await launch())
        } catch {
            result = .failure(error)
        }
        let waiters = launchWaiters ?? []
        launchWaiters = nil
        for waiter in waiters { waiter.resume(with: result) }
        return try result.get()
    }

    /// What ``start()`` does, once.
    private func launch() async throws -> OrderLoadReport {
        let report: OrderLoadReport
        do {
            report = try await store.loadOpenOrders()
        } catch {
            throw PurchaseKitError.wrap(error, as: .persistenceReadFailed, "The saved orders could not be loaded.",
                                        advice: "Check the order store's location and permissions, then start again.")
        }
        // Shut down while the orders loaded: nothing is taken on.
        try ensureRunning()
        started = true
        loadProblems = report.problems
        orders.load(report.orders)
        for problem in report.problems {
            log(.warning, "A saved order could not be read and was set aside", ["code": problem.code.rawValue, "problem": problem.message])
        }
        log(.info, "Engine started", ["openOrders": "\(report.orders.count)", "problems": "\(report.problems.count)"])
        await attachToStore(within: configuration.limits.launchTimeout)
        // Shut down while the store replayed: the next engine recovers.
        try ensureRunning()
        // Oldest first; the keys are sorted, not the orders, which are large to move.
        let ids = report.orders.map { (createdAt: $0.createdAt, id: $0.id) }
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map(\.id)
        spawn { engine in
            await engine.recover(orderIDs: ids)
            await engine.reconcileRevocations()
            await engine.followUpAllFlaggedRenewals()
        }
        return report
    }

    /// Recovers the loaded orders, oldest first, through the lane.
    private func recover(orderIDs: [String]) async {
        await runInLane(orderIDs, .recovery)
    }

    /// Attaches to the store, which replays its unfinished transactions, and
    /// waits for that at most `seconds`: a store that never answers must not
    /// hang launch or a retry trigger. The attach goes on as engine work and
    /// its replay is handled whenever it comes.
    func attachToStore(within seconds: TimeInterval?) async {
        // After shutdown nothing attaches, and nothing would end the wait.
        guard !isShutDown else { return }
        let attached = OneShot<Void>()
        spawn { engine in
            engine.queueObserver.connect(engine)
            await engine.queue.attach(engine.queueObserver)
            attached.resolve(.success(()))
        }
        // Without a time limit the timer has no deadline: shutdown still ends the wait.
        let deadline = setDeadline(seconds.map { clock.now.addingTimeInterval($0) }) { engine, firing in
            if attached.resolve(.success(())), firing == .due {
                engine.log(.warning, "The store did not replay its transactions in time; the engine goes on without waiting")
            }
        }
        try? await attached.value()
        cancelDeadline(deadline)
    }

    // MARK: Events

    /// A stream of every event from now on. Each call makes a new subscriber;
    /// every subscriber gets every event. Cancel the iterating task to unsubscribe.
    public func events() -> AsyncStream<PurchaseEvent> {
        let (stream, continuation) = AsyncStream<PurchaseEvent>.makeStream(bufferingPolicy: .unbounded)
        nextSubscriberID += 1
        let id = nextSubscriberID
        subscribers[id] = continuation
        let starter = configuration.taskStarter
        continuation.onTermination = { [weak self] _ in
            starter.start { [weak self] in await self?.unsubscribe(id) }
        }
        return stream
    }

    private func unsubscribe(_ id: UInt64) {
        subscribers[id] = nil
    }

    /// Whether anything hears ``emit(_:)``: an event stream, or a customer
    /// info stream. Every save builds its events only when something does.
    var hasEventListeners: Bool {
        !subscribers.isEmpty || !customerWatch.watchers.isEmpty
    }

    func emit(_ event: PurchaseEvent) {
        for continuation in subscribers.values { continuation.yield(event) }
        customerFactsChanged()
    }

    // MARK: Logging

    func log(_ level: PurchaseLogLevel, _ message: @autoclosure () -> String,
             _ metadata: @autoclosure () -> [String: String] = [:]) {
        let handler = configuration.logHandler
        // A line the handler drops costs no string or dictionary.
        guard level >= handler.minimumLevel else { return }
        handler.log(LogRecord(level: level, message: message(), metadata: LogRedaction.redact(metadata()), date: clock.now))
    }

    // MARK: Tracked work

    /// Runs `body` as engine work that ``waitUntilIdle()`` waits for.
    func spawn(_ body: @escaping @Sendable (PurchaseEngine) async -> Void) {
        guard !isShutDown else { return }
        nextWorkID += 1
        let id = nextWorkID
        work[id] = configuration.taskStarter.start { [weak self] in
            guard let self else { return }
            await body(self)
            await self.endWork(id)
        }
    }

    private func endWork(_ id: UInt64) {
        work[id] = nil
    }

    /// Returns when the engine has nothing left to do *now*: every delivery,
    /// finish and archive it started has ended, and every retry and store
    /// timeout whose time has come has run. Retries due later stay scheduled. Tests call this after
    /// advancing a manual clock, instead of sleeping (a test hook, `@_spi(Testing)`).
    @_spi(Testing) public func waitUntilIdle() async {
        while true {
            let now = clock.now
            // In a fixed order (not the dictionary's), so that a simulation
            // waiting here wakes at the same points on every replay. Timers
            // due now count as work: the sleeper runs them, then ends.
            let pending = work.sorted { $0.key < $1.key }.map(\.value) + [sleeperWithDueTimers(at: now)].compactMap { $0 }
            if pending.isEmpty { return }
            for task in pending { await task.value }
        }
    }

    /// The dates of the retries scheduled, by order id (a test hook, `@_spi(Testing)`).
    @_spi(Testing) public var scheduledRetries: [String: Date] {
        timers.mapValues(\.deadline)
    }

    /// How many purchase calls wait in the task queue for their turn (a test hook, `@_spi(Testing)`).
    @_spi(Testing) public var queuedCalls: Int {
        taskQueue.waiterCount
    }
}
