import Foundation
@_spi(Testing) import PurchaseKit

/// One seeded run: a history of purchases with faults, then a quiet phase,
/// then the end checks. Every step waits for a deterministic idle point
/// (the engine's `waitUntilIdle`, a dead process being gone); the clock moves
/// only when a step moves it.
final class SimulationRun {
    static let users = ["user-1", "user-2", "user-3"]
    /// How long the quiet phase lets the clock run.
    static let quietPeriod: TimeInterval = 2 * 24 * 3600

    let seed: UInt64
    let maximumPurchases: Int
    var random: SeededRandomNumberGenerator
    let world: SimulationWorld
    var app: SimulatedApp!
    var apps: [SimulatedApp] = []
    var currentUser: String?
    /// Whether the trace's lines are kept, or only its fingerprint (a batch of runs).
    let keepsTrace: Bool
    var trace: [String] = []
    var fingerprint = TraceFingerprint()
    /// The line being written, reused from step to step.
    private var line = TraceLine()
    var verdict = Verdict()
    var purchases = 0
    let results = Locked<[PurchaseResult]>([])
    /// Purchase calls that have not returned, by "user product": opened when the call returns.
    let inFlight = Locked<[String: Latch]>([:])
    /// Per user, the transactions delivered on the current device: what its
    /// entitlements and balances must keep showing, whatever the store prunes.
    var deliveredHere: [String: Set<String>] = [:]
    /// How many credits the ledger held when the current device was set up:
    /// the later ones are its deliveries.
    var firstCreditHere = 0
    /// Whether the app was installed on a new device during the run.
    var reinstalled = false

    /// A run with rates and a profile drawn from the seed, or the given
    /// rates and `profile` (the default one if none is given).
    init(seed: UInt64, maximumPurchases: Int, sabotage: FaultSimulation.Sabotage, rates fixed: FaultPlan.Rates? = nil,
         profile fixedProfile: SimulationWorld.Profile? = nil, starter: any TaskStarter, keepsTrace: Bool = true) {
        self.seed = seed
        self.keepsTrace = keepsTrace
        self.maximumPurchases = max(1, maximumPurchases)
        random = SeededRandomNumberGenerator(seed: seed)
        var drawn = FaultPlan.Rates.draw(using: &random)
        drawn.lookupFails = FaultPlan.Rates.drawnApart("lookupFails", seed: seed, upTo: 0.08)
        let rates = fixed ?? drawn
        var profile = fixed == nil ? SimulationWorld.Profile.draw(using: &random) : fixedProfile ?? SimulationWorld.Profile()
        if sabotage == .diskIgnoresFlushes { profile.durableStore = true }
        world = SimulationWorld(seed: seed, rates: rates, profile: profile, sabotage: sabotage, starter: starter)
        currentUser = Self.users[0]
    }

    var checker: InvariantChecker { InvariantChecker(world: world) }

    func execute() async -> FaultSimulation.RunResult {
        let target = Int.random(in: 1...maximumPurchases, using: &random)
        await launch()
        var step = 0
        while purchases < target {
            step += 1
            let label = await performRandomStep()
            await endStep("\(step) \(label)")
        }
        await quietPhase(firstStep: step + 1)
        await checker.checkEnd(app: app, apps: apps, results: results.withLock { $0 }, deliveredHere: deliveredHere, firstCreditHere: firstCreditHere,
                               into: &verdict)
        await tearDown()
        return makeResult()
    }

    // MARK: Processes

    func launch(dyingAt point: ProcessKill.Point? = nil) async {
        if let app, app.kill.isDead {
            // A dead process runs nothing: its engine's timers would otherwise
            // keep firing on the world's clock, every outside call failing,
            // for the rest of the run.
            await app.engine.shutdown()
            if let disk = world.device.disk { cutPower(disk) }
        }
        app = await SimulatedApp.launch(world, index: apps.count + 1, user: currentUser, dyingAt: point)
        apps.append(app)
        if let problem = app.openingProblem {
            verdict.flag(\.lost, "launch \(apps.count)", "launch \(apps.count): \(problem)")
        }
    }

    /// A process on a durable store died: either the process alone (the
    /// system writes its cache back) or the machine with it, and the disk keeps
    /// one of the outcomes a power loss allows. A disk that reached its crash
    /// point always loses power.
    private func cutPower(_ disk: SimulatedDisk) {
        if disk.isDown || Bool.random(using: &random) {
            world.plan.record("power loss")
            disk.powerLoss(.seeded(UInt64.random(in: 0...UInt64.max, using: &random)))
        } else {
            disk.powerLoss(.everything)
        }
    }

    /// After a step: a process that died is gone and the app is relaunched;
    /// the step and the world are traced; the rules are checked.
    func endStep(_ label: String, relaunchDyingAt point: ProcessKill.Point? = nil) async {
        var text = label
        if app.kill.isDead {
            await app.kill.waitUntilGone()
            world.plan.record("crash")
            text += " +crash@\(app.kill.callCount)"
            await launch(dyingAt: point)
        }
        let orders = await world.allOrders()
        for order in orders where order.status == .delivered || order.status == .completed {
            if let id = order.transactionID { deliveredHere[order.userID, default: []].insert(id) }
        }
        let account = await world.store.accountView()
        let credits = await world.server.allCredits
        line.reset()
        line.write(text)
        line.write(" | ")
        snapshot(orders, account: account, credits: credits, into: &line)
        record(line)
        checker.checkStep("step \(label)", orders: orders, account: account, credits: credits, into: &verdict)
    }

    /// Adds a line to the trace's fingerprint, and to the trace when it is kept.
    func record(_ line: TraceLine) {
        fingerprint.add(line.bytes)
        if keepsTrace { trace.append(line.text) }
    }

    /// The world in a canonical form, what must be the same on every replay,
    /// appended to `line`: a step's snapshot grows with the history, and it
    /// is made after every step.
    func snapshot(_ orders: [Order], account: AccountView, credits: [Credit], into line: inout TraceLine) {
        line.write("orders[")
        line.writeSeparated(orders) { line, order in
            line.write(order.id)
            line.write(":")
            line.write(order.userID)
            line.write(":")
            line.write(order.status.rawValue)
            line.write(":")
            line.write(order.transactionID ?? "-")
            if order.isFinished { line.write("f") }
        }
        line.write("] credits[")
        let sortedCredits = credits.sorted { ($0.transactionID, $0.userID) < ($1.transactionID, $1.userID) }
        line.writeSeparated(sortedCredits) { line, credit in
            line.write(credit.transactionID)
            line.write(">")
            line.write(credit.userID)
        }
        line.write("] unfinished[")
        var unfinished = account.unfinishedPayments
        for record in account.records where !record.isFinished { unfinished.append(record.transaction.id) }
        line.writeSeparated(unfinished.sorted()) { line, id in line.write(id) }
        line.write("] pending ")
        line.write(String(account.pendingCount))
        line.write(" held ")
        line.write(String(account.heldCount))
        line.write(" t ")
        line.write(String(Int(world.clock.now.timeIntervalSince(ManualClock.defaultStart))))
    }

    // MARK: The quiet phase

    /// Faults stop; what waits is resolved; the clock runs through every
    /// scheduled retry for a bounded time.
    func quietPhase(firstStep: Int) async {
        disarmCrash()
        world.plan.setEnabled(false)
        await world.store.setDefaultFaults(.none)
        var step = firstStep
        func done(_ label: String) async {
            await endStep("\(step) quiet: \(label)")
            step += 1
        }
        await answerEveryPendingRequest()
        await world.store.releaseHeldUpdates(order: .asProduced)
        await app.settle()
        await done("answer Ask to Buy, complete interrupted purchases, release held updates")
        await app.engine.retryPendingDeliveries()
        await app.settle()
        await done("retry pending deliveries")
        await assignUnattributedOrders()
        let end = world.clock.now.addingTimeInterval(Self.quietPeriod)
        while let next = await app.engine.scheduledRetries.values.min(), next <= end {
            world.clock.advance(to: next)
            await app.settle()
        }
        world.clock.advance(to: end)
        // Renewals that fell due are made now, not by the end checks' first
        // question to the store (which would change the world being checked).
        await world.store.processRenewals()
        await app.settle()
        await assignUnattributedOrders()
        await done("clock runs on")
        if world.profile.manualFinish {
            _ = await finishByHand()
            await done("the app finishes what it delivered")
        }
    }

    /// Support gives each transaction that could not be attributed safely to
    /// the user who paid for it (the store knows).
    func assignUnattributedOrders() async {
        for order in await app.engine.openOrders() where order.userID.isEmpty {
            guard let id = order.transactionID, let buyer = await world.store.buyer(ofTransactionID: id) else { continue }
            _ = try? await app.engine.assign(orderID: order.id, toUser: buyer)
            await app.settle()
            line.reset()
            line.write("support assigned \(order.id) to \(buyer)")
            record(line)
        }
    }

    /// Kills the last process and lets every sleeper on the clock run out, so
    /// that no timer is left waiting when the run ends.
    func tearDown() async {
        await app.kill.killNow()
        world.clock.advance(by: 400 * 24 * 3600)
        // Purchase calls are not awaited: with a broken world (see `Sabotage`)
        // one may wait for ever, and a correct one has ended by now.
        for each in apps { await each.engine.waitUntilIdle() }
    }

    func makeResult() -> FaultSimulation.RunResult {
        var faults = world.plan.injected
        faults = faults.filter { $0.value > 0 }
        return FaultSimulation.RunResult(
            seed: seed, purchases: purchases, faults: faults, lost: verdict.lost.count,
            duplicated: verdict.duplicated.count, wrongUser: verdict.wrongUser.count, unfinished: verdict.unfinished,
            invalidTransitions: verdict.invalidTransitions, entitlementViolations: verdict.entitlementViolations,
            secretLeaks: verdict.secretLeaks, failures: verdict.messages, trace: trace, traceHash: fingerprint.hex)
    }
}
