import Foundation
@_spi(Testing) import PurchaseKit

/// The steps past the first day: months of renewals with billing trouble and
/// cancellations, refunds of every product type, restores on the same and on
/// a new device, purchases made outside the app, log-outs, and an app that
/// finishes transactions itself.
extension SimulationRun {
    /// The lifecycle steps and their weights, beside the purchase-day steps.
    static let lifecycleChoices: [(weight: Double, label: String)] = [
        (0.12, "months"), (0.06, "billing issue"), (0.05, "billing fixed"), (0.05, "cancel subscription"),
        (0.08, "refund"), (0.08, "restore"), (0.04, "new device"), (0.06, "outside purchase"),
        (0.05, "log out"), (0.06, "finish by hand"),
    ]

    func performLifecycleStep(_ label: String) async -> String {
        switch label {
        case "months": return await passDays()
        case "billing issue":
            let product = await subscriptionProduct()
            await world.store.simulateBillingIssue(productID: product)
            world.plan.record("billing issue")
            return "billing issue on \(product)"
        case "billing fixed":
            let product = await subscriptionProduct()
            await world.store.resolveBillingIssue(productID: product)
            await app.settle()
            return "billing issue on \(product) resolved"
        case "cancel subscription":
            let product = await subscriptionProduct()
            try? await world.store.cancelSubscription(productID: product)
            world.plan.record("subscription cancelled")
            return "auto-renew off for \(product)"
        case "refund": return await refundOne()
        case "restore": return await restore()
        case "new device": return await moveToNewDevice()
        case "outside purchase": return await purchaseOutsideTheApp()
        case "log out":
            currentUser = nil
            world.plan.record("log out")
            await app.engine.setCurrentUser(nil)
            return "log out"
        case "finish by hand": return await finishByHand()
        default: return "nothing (\(label))"
        }
    }

    /// The tier of the subscription group the account holds, for a step
    /// about its subscription (`monthly` when it holds none).
    private func subscriptionProduct() async -> String {
        await world.store.heldSubscription(inGroup: SimulationWorld.plusGroupID) ?? SimulationWorld.monthly
    }

    /// One to forty-five days pass: subscriptions renew, enter grace or
    /// billing retry, or expire; unanswered payments expire; retries run.
    private func passDays() async -> String {
        let days = Int.random(in: 1...45, using: &random)
        world.plan.record("days pass")
        // Interrupted or late payments and held updates do not outlive a day
        // at the store: they are answered and delivered before the days pass.
        // (A payment whose token the store lost and whose order expired and
        // left the matching window meanwhile cannot be told from a purchase
        // made outside the app: see the README.) In half the cases, Ask to Buy
        // requests that kept their token stay unanswered: their orders expire
        // after the approval expiry, and an answer that comes later still finds them.
        let keepsRequests = Bool.random(using: &random)
        await answerEveryPendingRequest(exceptAskToBuyWithToken: keepsRequests)
        await world.store.releaseHeldUpdates(order: .asProduced)
        await app.settle()
        let armed = maybeArmCrash(within: 1...8)
        let end = world.clock.now.addingTimeInterval(Double(days) * 24 * 3600)
        // Once the process has died, its retries are no one's: the days pass
        // in one go. (Followed retry by retry, a dead engine whose every save
        // fails set a new one every ten minutes of the days.)
        while !app.kill.isDead, let next = await app.engine.scheduledRetries.values.min(), next <= end {
            world.clock.advance(to: next)
            await app.settle()
        }
        world.clock.advance(to: end)
        await world.store.processRenewals()
        await app.settle()
        disarmCrash()
        return "\(days) days pass\(armed)"
    }

    /// Answers every Ask to Buy request (approved or declined), or with
    /// `exceptAskToBuyWithToken` those whose token the store lost, and
    /// completes every interrupted and late payment.
    func answerEveryPendingRequest(exceptAskToBuyWithToken: Bool = false) async {
        for pending in await world.store.pendingAskToBuy() {
            if exceptAskToBuyWithToken, !pending.faults.losesOrderToken { continue }
            if Bool.random(using: &random) {
                try? await world.store.approveAskToBuy(id: pending.id)
            } else {
                try? await world.store.declineAskToBuy(id: pending.id)
            }
            await app.settle()
        }
        for pending in await world.store.pendingInterrupted() {
            try? await world.store.completeInterruptedPurchase(id: pending.id)
            await app.settle()
        }
        for pending in await world.store.pendingLatePayments() {
            try? await world.store.completeLatePayment(id: pending.id)
            await app.settle()
        }
    }

    /// The store refunds one of the account's transactions, of any product type.
    private func refundOne() async -> String {
        let refundable = await world.store.allTransactions().filter { !$0.isRevoked }
        guard let transaction = refundable.randomElement(using: &random) else { return "nothing to refund" }
        world.plan.record("refund")
        let armed = maybeArmCrash(within: 1...8)
        try? await world.store.refund(transactionID: transaction.id)
        await app.settle()
        disarmCrash()
        return "refund \(transaction.id) (\(transaction.productID))\(armed)"
    }

    /// Whether `user` may restore on a device that lost its orders: on an
    /// account shared by several app users, a restore cannot tell whose a
    /// restored purchase is until the server answers, and a renewal arriving
    /// meanwhile follows the restoring user (see the README's limits). The
    /// simulation restores on such a device only for a user who paid for
    /// every restorable purchase of the account. The store's payers, not the
    /// server's credits: a subscription the server never credited (its
    /// receipt judged forged) still renews for the user who paid for it, and
    /// a restore on the new device once credited that renewal to the restorer.
    private func mayRestore(_ user: String) async -> Bool {
        guard reinstalled else { return true }
        let restorable = Set([SimulationWorld.pro] + SimulationWorld.plusGroup)
        return await world.store.accountView().records.allSatisfy {
            !restorable.contains($0.transaction.productID) || $0.buyer == user
        }
    }

    /// The current user restores on this device.
    private func restore() async -> String {
        guard let user = currentUser else { return "restore skipped: nobody is logged in" }
        guard await mayRestore(user) else { return "restore skipped: the account's purchases belong to other users" }
        world.plan.record("restore")
        let armed = maybeArmCrash(within: 1...8)
        let restored = try? await app.engine.restorePurchases(user: user)
        await app.settle()
        disarmCrash()
        if let restored { await check(restored) }
        let outcome = restored == nil ? "failed" : "done"
        return "restore for \(user): \(outcome)\(armed)"
    }

    /// Checks what a restore answered (``InvariantChecker/checkRestore(_:credits:into:)``).
    private func check(_ restored: RestoreResult) async {
        checker.checkRestore(restored, credits: await world.server.allCredits, into: &verdict)
    }

    /// The app is installed on a new device: no saved orders; the store
    /// replays what is unfinished, and the user restores.
    private func moveToNewDevice() async -> String {
        // A purchase still undelivered when the app is reinstalled carries a
        // token the new install does not know; on an account shared by several
        // app users, a restore cannot tell whose it is (see the README's
        // limits). Users move once what they bought is delivered.
        await answerEveryPendingRequest()
        await world.store.releaseHeldUpdates(order: .asProduced)
        await app.settle()
        guard await world.store.unfinishedTransactions().isEmpty else { return "new device skipped: deliveries pending" }
        world.plan.record("new device")
        await app.kill.killNow()
        await app.kill.waitUntilGone()
        world.replaceDevice()
        deliveredHere = [:]
        firstCreditHere = await world.server.allCredits.count
        await launch()
        reinstalled = true
        var text = "new device"
        if let user = currentUser, await mayRestore(user) {
            let restored = try? await app.engine.restorePurchases(user: user)
            await app.settle()
            if let restored { await check(restored) }
            text += ", \(user) restores"
        }
        return text
    }

    /// A purchase made outside the app (another device of the account, or a
    /// promoted purchase) while a user is logged in: the app credits that user.
    private func purchaseOutsideTheApp() async -> String {
        guard let user = currentUser else { return "outside purchase skipped: nobody is logged in" }
        // A payment without a token looks exactly like the lost-token payment of
        // an order waiting for the store; the reconciler matches it to the one
        // such order. Buy outside only what no order waits for.
        let waiting = Set(await app.engine.openOrders().filter {
            ($0.transaction == nil && [.created, .purchasing, .deferred].contains($0.status)) || $0.isExpiredPayment
        }.map(\.productID))
        let products = [SimulationWorld.coins, SimulationWorld.season, SimulationWorld.pro].filter { !waiting.contains($0) }
        guard let product = products.randomElement(using: &random) else { return "outside purchase skipped: orders wait" }
        world.plan.record("outside purchase")
        // Bought outside the app: the transaction carries no order token.
        await world.store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true))
        let token = "outside-\(purchases)-\(world.clock.now.timeIntervalSince1970)"
        // Who gets a purchase without a token is whoever is logged in when the
        // app learns of it; the step keeps faults off so that is the buyer.
        let faultsWereOn = world.plan.isEnabled
        world.plan.setEnabled(false)
        try? await world.store.add(Payment(productID: product, quantity: 1, orderToken: token, userID: user))
        await app.settle()
        world.plan.setEnabled(faultsWereOn)
        return "outside purchase of \(product) by \(user)"
    }

    /// With the manual finish policy, the app finishes what it delivered.
    func finishByHand() async -> String {
        guard world.profile.manualFinish else { return "finish by hand: not this app's policy" }
        var finished = 0
        for order in await app.engine.openOrders() where order.status == .delivered {
            if (try? await app.engine.finish(orderID: order.id)) != nil { finished += 1 }
        }
        await app.settle()
        return "the app finishes \(finished) delivered orders"
    }
}
