import Foundation
@_spi(Testing) import PurchaseKit

/// What broke in one run: the transactions lost, credited twice or to the
/// wrong user, the other counts, and one message per finding.
struct Verdict: Sendable {
    var lost: Set<String> = []
    var duplicated: Set<String> = []
    var wrongUser: Set<String> = []
    var unfinished = 0
    var invalidTransitions = 0
    var entitlementViolations = 0
    var secretLeaks = 0
    var messages: [String] = []

    var passed: Bool { messages.isEmpty }

    mutating func flag(_ set: WritableKeyPath<Verdict, Set<String>>, _ id: String, _ message: String) {
        if self[keyPath: set].insert(id).inserted { messages.append(message) }
    }

    mutating func count(_ counter: WritableKeyPath<Verdict, Int>, by amount: Int = 1, _ message: String) {
        guard amount > 0 else { return }
        self[keyPath: counter] += amount
        messages.append(message)
    }
}

/// The correctness rules of the design, checked against the world: the
/// store's records, the server's ledger (keyed by transaction id), the saved
/// orders and the log.
struct InvariantChecker {
    let world: SimulationWorld

    /// Rules that hold after every step, faults or not: nothing credited to
    /// anyone but the payer, nothing credited twice, no paid transaction
    /// finished without its credit, no forged receipt credited.
    func checkStep(_ step: String, orders: [Order], account: AccountView, credits allCredits: [Credit],
                   into verdict: inout Verdict) {
        let credits = Dictionary(grouping: allCredits, by: \.transactionID)
        for record in account.records {
            let transaction = record.transaction
            let id = transaction.id
            let mine = credits[id] ?? []
            let buyer = record.buyer
            let forged = world.plan.isForged(transactionID: id)
            if mine.count > 1 {
                verdict.flag(\.duplicated, id, "\(step): transaction \(id) credited \(mine.count) times")
            }
            for credit in mine where credit.userID != buyer {
                verdict.flag(\.wrongUser, id, "\(step): transaction \(id) of \(buyer) credited to \(credit.userID)")
            }
            if forged, !mine.isEmpty {
                verdict.count(\.entitlementViolations, "\(step): forged transaction \(id) was credited")
            }
            if record.isFinished, mine.isEmpty, !forged, !transaction.isRevoked {
                verdict.flag(\.lost, id, "\(step): transaction \(id) finished without a credit")
            }
        }
        var granting: [String: [Order]] = [:]
        for order in orders where order.status == .delivered || order.status == .completed {
            guard let id = order.transactionID else {
                verdict.count(\.entitlementViolations, "\(step): order \(order.id) is \(order.status.rawValue) without a transaction")
                continue
            }
            granting[id, default: []].append(order)
            guard let credit = credits[id]?.first else {
                verdict.flag(\.lost, id, "\(step): order \(order.id) is \(order.status.rawValue) but transaction \(id) has no credit")
                continue
            }
            if credit.userID != order.userID {
                verdict.flag(\.wrongUser, id, "\(step): order \(order.id) of \(order.userID) holds transaction \(id) credited to \(credit.userID)")
            }
        }
        for (id, orders) in granting where orders.count > 1 {
            verdict.flag(\.duplicated, id, "\(step): transaction \(id) delivered by \(orders.count) orders \(orders.map(\.id).sorted())")
        }
    }

    /// What a restore answered against the ledger: every order it reports
    /// delivered or owed is the restoring user's, and each delivered one is
    /// credited to that user. A purchase of another user on the same store
    /// account is that user's, however the restore found it.
    func checkRestore(_ result: RestoreResult, credits: [Credit], into verdict: inout Verdict) {
        let user = result.userID
        for order in result.delivered + result.owed where order.userID != user {
            verdict.count(\.entitlementViolations, "restore for \(user) reported order \(order.id) of \(order.userID) as \(order.status.rawValue)")
        }
        for order in result.delivered where order.userID == user {
            let credited = order.transactionID.flatMap { id in credits.first { $0.transactionID == id } }
            if credited?.userID != user {
                verdict.count(\.entitlementViolations, "restore for \(user) reported order \(order.id) delivered but it is not credited to \(user)")
            }
        }
    }

    /// Rules for the end of a run, after the faults stopped and the clock ran
    /// on: every paid transaction credited exactly once and finished; what the
    /// engine reports as owned matches the ledger; nothing secret was logged.
    func checkEnd(app: SimulatedApp, apps: [SimulatedApp], results: [PurchaseResult], deliveredHere: [String: Set<String>],
                  firstCreditHere: Int, into verdict: inout Verdict) async {
        checkStep("end", orders: await world.allOrders(), account: await world.store.accountView(),
                  credits: await world.server.allCredits, into: &verdict)
        let store = world.store
        let credits = Dictionary(grouping: await world.server.allCredits, by: \.transactionID)
        var users: Set<String> = []
        for transaction in await store.allTransactions() {
            let id = transaction.id
            if let buyer = await store.buyer(ofTransactionID: id) { users.insert(buyer) }
            if !world.plan.isForged(transactionID: id), !transaction.isRevoked, (credits[id] ?? []).isEmpty {
                verdict.flag(\.lost, id, "end: paid transaction \(id) was never credited")
            }
        }
        let unfinished = await store.unfinishedTransactions()
        verdict.count(\.unfinished, by: unfinished.count, "end: unfinished transactions \(unfinished.map(\.id))")
        let unfinishedPayments = await store.unfinishedPaymentIDs()
        verdict.count(\.unfinished, by: unfinishedPayments.count, "end: unfinished failed or cancelled payments \(unfinishedPayments)")
        var transitions = 0
        for each in apps { transitions += await each.engine.diagnostics.invalidTransitionsAttempted }
        verdict.count(\.invalidTransitions, by: transitions, "invalid transitions attempted: \(transitions)")
        for each in apps {
            for violation in each.flights.violations { verdict.count(\.entitlementViolations, "launch \(each.index): \(violation)") }
        }
        for order in await world.allOrders() { users.insert(order.userID) }
        let allCredits = await world.server.allCredits
        let transactions = Dictionary(await store.allTransactions().map { ($0.id, $0) }) { first, _ in first }
        let revoked = Set(transactions.values.filter(\.isRevoked).map(\.id))
        for user in users.sorted() where !user.isEmpty {
            await checkEntitlements(of: user, engine: app.engine, credits: allCredits, transactions: transactions,
                                    deliveredHere: deliveredHere, firstCreditHere: firstCreditHere, revoked: revoked,
                                    into: &verdict)
        }
        for case .success(let order) in results {
            let credited = order.transactionID.flatMap { credits[$0]?.first }
            if credited?.userID != order.userID {
                verdict.count(\.entitlementViolations, "end: order \(order.id) was reported a success but is not credited to \(order.userID)")
            }
        }
        await checkLog(into: &verdict)
    }

    /// What the engine says a user owns against what the ledger says the user
    /// paid for: every entitlement backed by an unrevoked credit to that user;
    /// every unrevoked non-consumable delivered on this device still granted
    /// (whatever the order store pruned since); the consumable balance equal
    /// to the unrevoked units credited and delivered on this device.
    private func checkEntitlements(of user: String, engine: PurchaseEngine, credits: [Credit],
                                   transactions: [String: StoreTransaction], deliveredHere: [String: Set<String>],
                                   firstCreditHere: Int, revoked: Set<String>, into verdict: inout Verdict) async {
        let mine = credits.filter { $0.userID == user }
        // What this device delivered: credited since it was set up, or seen delivered in its store.
        let creditedHere = Set(credits.dropFirst(firstCreditHere).map(\.transactionID))
        func here(_ credit: Credit) -> Bool {
            creditedHere.contains(credit.transactionID) || deliveredHere[credit.userID]?.contains(credit.transactionID) == true
        }
        do {
            let entitlements = try await engine.entitlements(user: user)
            checkPlansChangedByOthers(of: user, entitlements: entitlements, credits: credits, transactions: transactions,
                                      revoked: revoked, here: here, into: &verdict)
            for entitlement in entitlements where !mine.contains(where: { $0.transactionID == entitlement.transactionID }) {
                verdict.count(\.entitlementViolations, "end: \(user) is entitled to \(entitlement.productID) by uncredited transaction \(entitlement.transactionID)")
            }
            for entitlement in entitlements where revoked.contains(entitlement.transactionID) {
                verdict.count(\.entitlementViolations, "end: \(user) is still entitled to \(entitlement.productID) by refunded transaction \(entitlement.transactionID)")
            }
            let granted = Set(entitlements.map(\.productID))
            for credit in mine where credit.productID == SimulationWorld.pro && here(credit)
                && !revoked.contains(credit.transactionID) && !granted.contains(credit.productID) {
                verdict.count(\.entitlementViolations, "end: \(user) paid for \(credit.productID) (transaction \(credit.transactionID)) but is not entitled to it")
            }
            var expected: [String: Int] = [:]
            for credit in mine where credit.productID == SimulationWorld.coins && here(credit)
                && !revoked.contains(credit.transactionID) {
                expected[credit.productID, default: 0] += credit.quantity
            }
            let balance = try await engine.consumableBalance(user: user)
            if balance.filter({ $0.value != 0 }) != expected {
                verdict.count(\.entitlementViolations, "end: \(user) has consumable balance \(balance), the ledger says \(expected)")
            }
        } catch {
            verdict.count(\.entitlementViolations, "end: the entitlements of \(user) could not be read: \(error)")
        }
    }

    /// On a store account users share, no user is still entitled to a
    /// subscription plan that another user's later change of the same
    /// subscription ended, once that change was credited and delivered on
    /// this device (on another device only, this one cannot know of it).
    /// A change the store refunded is left out: its order here may have been
    /// refused (a refund that reached the server before the delivery's
    /// answer), and a refused change ends nothing here.
    private func checkPlansChangedByOthers(of user: String, entitlements: [Entitlement], credits: [Credit],
                                           transactions: [String: StoreTransaction], revoked: Set<String>,
                                           here: (Credit) -> Bool, into verdict: inout Verdict) {
        let now = world.clock.now
        for entitlement in entitlements where entitlement.productType == .autoRenewable {
            guard let held = transactions[entitlement.transactionID] else { continue }
            let ended = credits.first { credit in
                guard credit.userID != user, credit.originalTransactionID == held.originalID,
                      !revoked.contains(credit.transactionID), here(credit),
                      let change = transactions[credit.transactionID] else { return false }
                return Reconciler.isBefore(held, change) && change.purchaseDate <= now
            }
            if let ended {
                verdict.count(\.entitlementViolations, "end: \(user) is still entitled to \(entitlement.productID) by transaction \(held.id), though \(ended.userID)'s change \(ended.transactionID) of the same subscription ended it")
            }
        }
    }

    /// No receipt (raw or base64) and no order token in any log line.
    private func checkLog(into verdict: inout Verdict) async {
        var secrets: Set<String> = Set(world.paymentTokens.withLock { $0 })
        for order in await world.allOrders() {
            if let token = order.token { secrets.insert(token) }
        }
        for transaction in await world.store.allTransactions() where !transaction.receipt.isEmpty {
            secrets.insert(transaction.receipt.base64EncodedString())
            if let text = String(data: transaction.receipt, encoding: .utf8) { secrets.insert(text) }
            if let token = transaction.orderToken { secrets.insert(token) }
        }
        let scanner = SecretScanner(secrets)
        for record in world.log.records {
            // Each part on its own: no secret spans the message and a metadata entry.
            if scanner.isFound(in: record.message)
                || record.metadata.contains(where: { scanner.isFound(in: $0.key) || scanner.isFound(in: $0.value) }) {
                verdict.count(\.secretLeaks, "a log line leaks a receipt or token: \"\(record.message)\"")
            }
        }
    }
}
