import Foundation

extension PurchaseEngine {
    /// Spends `amount` units of a consumable balance of the user, durably and
    /// at most once per `spendID`.
    ///
    /// The balance is what ``consumableBalance(user:)`` reports: delivered
    /// units (revoked ones not counted) minus the units spent, answered from
    /// the order store alone (it works offline). The spend is recorded in the
    /// order store before this returns, so it survives a crash or a relaunch.
    ///
    /// Retrying is safe: a spend id the user already spent returns that spend
    /// as it was recorded (the same `balanceAfter`), and spends nothing more.
    /// Spends of one user run one at a time, so two spends that together
    /// exceed the balance cannot both succeed.
    ///
    /// - Parameters:
    ///   - amount: units to spend; at least 1.
    ///   - balanceKey: the balance: a consumable's product id, or the balance key
    ///     ``Configuration/Policies/consumableCredits`` gives it.
    ///   - userID: the user.
    ///   - spendID: the caller's id for this spend, unique per user (a UUID, or
    ///     the id of the thing bought with the units). Reuse it only to retry.
    /// - Returns: the recorded spend, with the product's balance after it.
    /// - Throws: ``PurchaseKitError/Code/insufficientBalance`` when the balance
    ///   holds fewer than `amount` units (nothing is spent);
    ///   ``PurchaseKitError/Code/spendIDConflict`` when `spendID` was spent
    ///   already on another product or amount; ``PurchaseKitError/Code/invalidQuantity``
    ///   for an amount below 1 or an empty spend id; ``PurchaseKitError/Code/invalidConfiguration``
    ///   for an empty user id; ``PurchaseKitError/Code/persistenceReadFailed``
    ///   or ``PurchaseKitError/Code/persistenceWriteFailed`` when the store fails
    ///   (retry with the same spend id); ``PurchaseKitError/Code/spendsNotSupported``
    ///   for a custom order store that does not record spends.
    @discardableResult
    public func spend(_ amount: Int, of balanceKey: String, user userID: String, spendID: String) async throws -> ConsumableSpend {
        guard amount >= 1, !spendID.isEmpty else {
            throw PurchaseKitError(.invalidQuantity, "A spend needs an amount of at least 1 and a spend id; got \(amount) and \(spendID.isEmpty ? "no id" : "an id").",
                                   advice: "Pass a positive amount and a unique spend id.")
        }
        // An empty id names nobody: answering "insufficient balance" would hide the caller's mistake.
        guard !userID.isEmpty else {
            throw PurchaseKitError.emptyUserID("A spend", advice: "Pass the id of the user whose balance pays.")
        }
        let lockKey = "\u{0}spend\u{0}" + userID
        await lockOrder(lockKey)
        defer { unlockOrder(lockKey) }
        try ensureRunning()
        let spends = try await storedSpends(of: userID)
        if let earlier = spends.first(where: { $0.id == spendID }) {
            guard earlier.balanceKey == balanceKey, earlier.amount == amount else {
                throw PurchaseKitError(.spendIDConflict,
                                       "The spend id '\(spendID)' was used already for \(earlier.amount) of '\(earlier.balanceKey)'; this call asked for \(amount) of '\(balanceKey)'.",
                                       advice: "Use a new spend id for a new spend; reuse one only to retry the same spend.")
            }
            log(.info, "A spend was retried; the recorded one is returned", ["user": userID, "balance": balanceKey])
            return earlier
        }
        // Only the orders of the products that feed this balance: the store is
        // asked about one only if no order of it recorded its type and the
        // engine has not loaded it.
        let credits = configuration.policies.consumableCredits
        let orders = try await allOrders(of: userID).filter { ConsumableCredit.key(of: $0.productID, in: credits) == balanceKey }
        let facts = await productFacts(for: orders)
        let builder = CustomerInfoBuilder(userID: userID, orders: orders, facts: facts, spends: spends, renewals: [:],
                                          nonRenewingDuration: { _ in nil }, now: clock.now, credits: credits)
        let balance = builder.consumableBalances()[balanceKey, default: 0]
        guard balance >= amount else {
            throw PurchaseKitError(.insufficientBalance,
                                   "The balance of '\(balanceKey)' holds \(balance) units; \(amount) were asked for. Nothing was spent.",
                                   advice: "Offer the user a purchase, or spend fewer units.")
        }
        let spend = ConsumableSpend(id: spendID, userID: userID, balanceKey: balanceKey, amount: amount,
                                    date: clock.now, balanceAfter: balance - amount)
        // Checked again after the reads: a shutdown meanwhile hands the balance
        // to the next engine, whose spends this engine's lock does not hold back.
        try ensureRunning()
        let recorded: ConsumableSpend
        do {
            recorded = try await store.recordSpend(spend)
        } catch {
            throw PurchaseKitError.wrap(error, as: .persistenceWriteFailed, "The spend could not be saved; nothing was spent.",
                                        advice: "Try again with the same spend id.")
        }
        log(.info, "Units spent", ["user": userID, "balance": balanceKey, "amount": "\(amount)", "left": "\(recorded.balanceAfter)"])
        customerFactsChanged()
        return recorded
    }

    /// Every spend of the user, oldest first.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the spends cannot be read.
    public func spends(user userID: String) async throws -> [ConsumableSpend] {
        try await storedSpends(of: userID)
    }

    func storedSpends(of userID: String) async throws -> [ConsumableSpend] {
        do {
            return try await store.spends(forUser: userID)
        } catch {
            throw PurchaseKitError.wrap(error, as: .persistenceReadFailed, "The spends of user '\(userID)' could not be read.",
                                        advice: "Try again; check the order store's location and permissions.")
        }
    }
}
