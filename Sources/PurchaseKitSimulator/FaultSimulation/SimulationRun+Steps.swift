import Foundation
import PurchaseKit

extension SimulationRun {
    private var rates: FaultPlan.Rates { world.plan.rates }

    private func chance(_ rate: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < rate
    }

    /// Draws and performs one step; returns its label for the trace.
    func performRandomStep() async -> String {
        let askToBuy = await world.store.pendingAskToBuy()
        let interrupted = await world.store.pendingInterrupted()
        let late = await world.store.pendingLatePayments()
        let held = await world.store.heldUpdateCount()
        var choices: [(weight: Double, label: String)] = [(1, "purchase")]
        if !askToBuy.isEmpty { choices.append((0.3, "ask to buy")) }
        if !interrupted.isEmpty { choices.append((0.3, "interrupted")) }
        if !late.isEmpty { choices.append((0.3, "late payment")) }
        if held > 0 { choices.append((0.3, "release")) }
        choices += [(rates.clockJump, "clock"), (rates.userSwitch, "user"), (0.1, "retry"), (rates.crash / 2, "kill")]
        choices += Self.lifecycleChoices
        var roll = Double.random(in: 0..<choices.reduce(0) { $0 + $1.weight }, using: &random)
        let choice = choices.first { roll -= $0.weight; return roll < 0 }?.label ?? "purchase"
        switch choice {
        case "ask to buy": return await answerAskToBuy(askToBuy)
        case "interrupted": return await completeInterrupted(interrupted)
        case "late payment": return await completeLatePayment(late)
        case "release": return await releaseHeld()
        case "clock": return await jumpClock()
        case "user": return await switchUser()
        case "retry":
            await app.engine.retryPendingDeliveries()
            await app.settle()
            return "retry pending deliveries"
        case "kill":
            await app.kill.killNow()
            return "kill the app"
        case "purchase": return await purchase()
        default: return await performLifecycleStep(choice)
        }
    }

    /// Maybe arms a crash at one of the next counted calls of this step: a
    /// call of the app to the world or, on a durable store, half the time a
    /// call of the store to the disk.
    func maybeArmCrash(within offsets: ClosedRange<Int> = 1...12) -> String {
        guard chance(rates.crash) else { return "" }
        let offset = Int.random(in: offsets, using: &random)
        let timing: ProcessKill.Timing = Bool.random(using: &random) ? .before : .after
        if let disk = world.device.disk, Bool.random(using: &random) {
            // A save is several calls to the disk: any of them.
            let call = Int.random(in: 1...(offsets.upperBound * 6), using: &random)
            disk.crash(at: SimulatedDisk.CrashPoint(call: call, timing: timing == .before ? .before : .after))
            return " (crash armed \(timing.rawValue) disk +\(call))"
        }
        app.kill.arm(offset: offset, timing: timing)
        return " (crash armed \(timing.rawValue) +\(offset))"
    }

    /// Takes back the crash points of a step that were not reached.
    func disarmCrash() {
        app.kill.disarm()
        world.device.disk?.disarm()
    }

    private func purchase() async -> String {
        purchases += 1
        let user = SimulationRun.users.randomElement(using: &random) ?? SimulationRun.users[0]
        var product = SimulationWorld.oneOfEachType.randomElement(using: &random) ?? SimulationWorld.coins
        if product == SimulationWorld.monthly { product = SimulationWorld.plusGroup.randomElement(using: &random) ?? product }
        // Any user may ask for any tier: on the shared store account, a
        // change of tier by another user than the one who bought the tier
        // held now is the case the engine must not credit to the wrong one.
        var changesLater = false
        if SimulationWorld.plusGroup.contains(product), let change = await world.store.changesTier(to: product, by: user) {
            changesLater = change.atRenewalDate
            world.plan.record(change.atRenewalDate ? "tier change at renewal asked" : "tier change at once asked")
            if change.ofAnotherUser { world.plan.record("tier change of another user's tier asked") }
        }
        let quantity = product == SimulationWorld.coins ? Int.random(in: 1...3, using: &random) : 1
        let behavior: PurchaseBehavior
        let draw = Double.random(in: 0..<1, using: &random)
        if draw < rates.cancel {
            behavior = .userCancel
        } else if draw < rates.cancel + rates.storeFailure {
            let reasons: [StoreFailureReason] = [.unknown, .networkError, .paymentNotAllowed, .clientInvalid]
            behavior = .fail(reasons.randomElement(using: &random) ?? .unknown)
        } else if draw < rates.cancel + rates.storeFailure + rates.askToBuy {
            behavior = .askToBuy
        } else if draw < rates.cancel + rates.storeFailure + rates.askToBuy + rates.interrupted {
            behavior = .interrupted
        } else if draw < rates.cancel + rates.storeFailure + rates.askToBuy + rates.interrupted + rates.latePayment {
            behavior = Bool.random(using: &random) ? .failsThenPays : .cancelsThenPays
        } else {
            behavior = .success
        }
        // A late payment whose token is lost too cannot be told from a purchase
        // made outside the app (see the README's limits): never both.
        // So can a change at the renewal date whose token is lost: it answers
        // its order a period later, long after the order left the matching window.
        let isLate = behavior == .failsThenPays || behavior == .cancelsThenPays || changesLater
        let faults = DeliveryFaults(losesOrderToken: chance(rates.lostToken) && !isLate,
                                    extraDeliveries: chance(rates.duplicate) ? Int.random(in: 1...2, using: &random) : 0,
                                    holdsUpdates: chance(rates.held))
        recordFaults(behavior, faults)
        let armed = maybeArmCrash()
        await purchase(product, user: user, quantity: quantity, script: PurchaseScript(behavior, faults: faults))
        disarmCrash()
        return "purchase \(product) x\(quantity) for \(user): \(behavior) \(describe(faults))\(armed)"
    }

    /// Makes one purchase call with `script` for the store, and returns once
    /// the payment reached the store (the call may wait for the store) or the
    /// call returned, and the engine is idle.
    func purchase(_ product: String, user: String, quantity: Int, script: PurchaseScript) async {
        world.nextScript.withLock { $0 = script }
        let latch = Latch()
        world.addLatch.withLock { $0 = latch }
        let engine = app.engine
        let results = self.results
        let key = "\(app.index) \(user) \(product)"  // calls queue only behind calls of the same launch
        let earlier = world.profile.waitsForDuplicates ? inFlight.withLock { $0[key] } : nil
        let returned = Latch()
        inFlight.withLock { $0[key] = returned }
        let inFlight = self.inFlight
        world.starter.start {
            let result = try? await engine.purchase(productID: product, user: user, quantity: quantity)
            if let result { results.withLock { $0.append(result) } }
            inFlight.withLock { if $0[key] === returned { $0[key] = nil } }
            returned.open()
            latch.open()
        }
        if let earlier {
            world.plan.record("queued purchase")
            // The call queues behind an earlier one that waits for the store:
            // time passes, deadline by deadline, until that one returns (its
            // store timeout frees it at the latest).
            let limit = world.clock.now.addingTimeInterval(2 * SimulatedApp.storeTimeout)
            while !earlier.isOpen {
                await app.settle()
                guard !earlier.isOpen, let next = world.clock.nextDeadline, next <= limit else { break }
                world.clock.advance(to: next)
            }
            if !earlier.isOpen {
                verdict.count(\.entitlementViolations, "a purchase call for \(product) and \(user) never returned")
                latch.open()
            }
        }
        await latch.wait()
        world.addLatch.withLock { $0 = nil }
        world.nextScript.withLock { $0 = nil }
        await app.settle()
    }

    private func recordFaults(_ behavior: PurchaseBehavior, _ faults: DeliveryFaults) {
        let plan = world.plan
        switch behavior {
        case .userCancel: plan.record("user cancel")
        case .fail: plan.record("store failure")
        case .askToBuy: plan.record("ask to buy")
        case .interrupted: plan.record("interrupted purchase")
        case .failsThenPays, .cancelsThenPays: plan.record("late payment")
        case .success: break
        }
        if faults.losesOrderToken { plan.record("lost order token") }
        if faults.extraDeliveries > 0 { plan.record("duplicate updates") }
        if faults.holdsUpdates { plan.record("late updates") }
    }

    private func describe(_ faults: DeliveryFaults) -> String {
        var parts: [String] = []
        if faults.losesOrderToken { parts.append("lost-token") }
        if faults.extraDeliveries > 0 { parts.append("dup\(faults.extraDeliveries)") }
        if faults.holdsUpdates { parts.append("held") }
        return parts.isEmpty ? "" : "[\(parts.joined(separator: ","))]"
    }

    private func answerAskToBuy(_ pending: [PendingPurchase]) async -> String {
        guard let request = pending.randomElement(using: &random) else { return "no Ask to Buy" }
        let approve = chance(0.7)
        let armed = maybeArmCrash()
        if approve {
            try? await world.store.approveAskToBuy(id: request.id)
        } else {
            world.plan.record("ask to buy declined")
            try? await world.store.declineAskToBuy(id: request.id)
        }
        await app.settle()
        disarmCrash()
        return "\(approve ? "approve" : "decline") \(request.id)\(armed)"
    }

    private func completeLatePayment(_ pending: [PendingPurchase]) async -> String {
        guard let request = pending.randomElement(using: &random) else { return "no late payment" }
        let armed = maybeArmCrash()
        try? await world.store.completeLatePayment(id: request.id)
        await app.settle()
        disarmCrash()
        return "late payment \(request.id)\(armed)"
    }

    private func completeInterrupted(_ pending: [PendingPurchase]) async -> String {
        guard let request = pending.randomElement(using: &random) else { return "no interrupted purchase" }
        let armed = maybeArmCrash()
        try? await world.store.completeInterruptedPurchase(id: request.id)
        await app.settle()
        disarmCrash()
        return "complete \(request.id)\(armed)"
    }

    private func releaseHeld() async -> String {
        let order = [ReleaseOrder.asProduced, .reversed, .shuffled].randomElement(using: &random) ?? .asProduced
        if order != .asProduced { world.plan.record("out-of-order updates") }
        await world.store.releaseHeldUpdates(order: order)
        await app.settle()
        return "release held updates \(order)"
    }

    private func jumpClock() async -> String {
        let seconds = Double(Int.random(in: 5...(12 * 3600), using: &random))
        world.plan.record("clock jump")
        world.clock.advance(by: seconds)
        await app.settle()
        return "clock +\(Int(seconds))s"
    }

    private func switchUser() async -> String {
        currentUser = SimulationRun.users.randomElement(using: &random) ?? SimulationRun.users[0]
        world.plan.record("user switch")
        await app.engine.setCurrentUser(currentUser)
        await app.engine.retryPendingDeliveries(user: currentUser)
        await app.settle()
        return "switch to \(currentUser ?? "nobody")"
    }
}
