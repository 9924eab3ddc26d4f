import Foundation
import PurchaseKit

extension SimulatedPaymentQueue {
    /// Brings every subscription up to `clock.now`: one renewal transaction
    /// per elapsed period (delivered as `.purchased`, same `originalID`, new
    /// `id`, the original order token kept), or grace period, billing retry
    /// and expiry when billing fails or the subscription was cancelled.
    ///
    /// Periods are scaled by the time rate: with a factor of 86,400 a month
    /// passes in 30 clock seconds. Call it whenever time moved; queries that
    /// observe subscriptions call it first.
    public func processRenewals() async {
        let now = clock.now
        var switched: [SubscriptionRecord] = []
        for productID in subscriptions.keys.sorted() {
            guard var subscription = subscriptions[productID],
                  let period = catalog[productID]?.subscription?.period else { continue }
            var renewals: [TransactionUpdate] = []
            advancing: while true {
                switch subscription.state {
                case .subscribed:
                    guard subscription.expirationDate <= now else { break advancing }
                    guard subscription.willAutoRenew else {
                        subscription.state = .expired
                        break advancing
                    }
                    if subscription.scheduledChange != nil {
                        // A downgrade or a crossgrade to another duration takes effect now.
                        if let (next, update) = takeScheduledChange(&subscription) {
                            switched.append(next)
                            renewals.append(update)
                        }
                        break advancing
                    }
                    if billingIssues.contains(productID) {
                        enterBillingTrouble(&subscription, period: period)
                        continue advancing
                    }
                    // Bounded: the rest waits for the next call, which continues from here.
                    guard renewals.count < Self.maximumRenewalsPerCall else { break advancing }
                    guard let expiration = nextExpiration(of: subscription, period: period) else {
                        // The next period cannot be computed (its dates are out of range):
                        // the subscription ends instead of renewing in place for ever.
                        subscription.willAutoRenew = false
                        subscription.state = .expired
                        break advancing
                    }
                    let renewal = renew(&subscription, purchaseDate: subscription.expirationDate, expiration: expiration)
                    renewals.append(update(.purchased, for: renewal))
                case .inGracePeriod:
                    guard let end = subscription.stateEndsAt, end <= now else { break advancing }
                    subscription.state = .inBillingRetryPeriod
                    subscription.stateEndsAt = scaled(Self.billingRetryDays, after: subscription.expirationDate)
                case .inBillingRetryPeriod:
                    guard let end = subscription.stateEndsAt, end <= now else { break advancing }
                    subscription.state = .expired
                    subscription.stateEndsAt = nil
                case .expired, .revoked:
                    break advancing
                }
            }
            subscriptions[productID] = subscription
            await send(renewals, faults: faults(for: productID))
        }
        for next in switched { subscriptions[next.productID] = next }
        if !switched.isEmpty {
            // The new products' subscriptions may have periods to catch up on too.
            await processRenewals()
            return
        }
        await processRefundRequests()
    }

    /// The most renewals of one subscription a single ``processRenewals()`` makes,
    /// so that a clock moved absurdly far (or a tiny period at a fast time rate)
    /// cannot make it run without end. Ten years of weekly renewals fit many times over.
    public static var maximumRenewalsPerCall: Int { 10_000 }

    /// The subscription's state after bringing it up to `clock.now`; nil when the account never had it.
    public func subscriptionStatus(productID: String) async -> SubscriptionSnapshot? {
        await processRenewals()
        return subscriptions[productID]?.status
    }

    /// The user turns auto-renew off: the current period runs out, then the
    /// subscription expires with no further renewal.
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound`` when the account has no such subscription.
    public func cancelSubscription(productID: String) throws(PurchaseKitError) {
        guard subscriptions[productID] != nil else {
            throw PurchaseKitError(.orderNotFound, "The account has no subscription to '\(productID)'.",
                                   advice: "Buy the subscription first.")
        }
        subscriptions[productID]?.willAutoRenew = false
        subscriptions[productID]?.scheduledChange = nil
    }

    /// From now on, renewals of `productID` fail to bill (an expired card):
    /// the subscription enters the grace period when the settings enable it,
    /// then billing retry, then expires.
    public func simulateBillingIssue(productID: String) {
        billingIssues.insert(productID)
    }

    /// The user fixes the payment method. A subscription in grace period or
    /// billing retry renews now (`.purchased` is delivered); in grace the
    /// renewal keeps the original period dates, in billing retry a new period
    /// starts now, as with the App Store.
    public func resolveBillingIssue(productID: String) async {
        billingIssues.remove(productID)
        guard var subscription = subscriptions[productID],
              let period = catalog[productID]?.subscription?.period else { return }
        let now = clock.now
        let expiration: Date?
        switch subscription.state {
        case .inGracePeriod:
            expiration = nextExpiration(of: subscription, period: period)
        case .inBillingRetryPeriod:
            subscription.cycleStart = now
            subscription.cyclePeriods = 0
            expiration = nextExpiration(of: subscription, period: period)
        case .subscribed, .expired, .revoked:
            return
        }
        guard let expiration else {
            // No next period can be computed: the subscription ends rather than renewing.
            subscription.willAutoRenew = false
            subscription.state = .expired
            subscription.stateEndsAt = nil
            subscriptions[productID] = subscription
            return
        }
        let renewal = renew(&subscription, purchaseDate: now, expiration: expiration)
        subscriptions[productID] = subscription
        await send([update(.purchased, for: renewal)], faults: faults(for: productID))
        await processRenewals()
    }

    // MARK: Time

    /// Real-time lengths of Apple's billing grace and retry periods, in days.
    static var gracePeriodDays: (weekly: Double, other: Double) { (6, 16) }
    static var billingRetryDays: Double { 60 }

    /// The clock date `count` periods after `start`, with time scaled by the time rate.
    ///
    /// Calendar periods are counted on the subscription's simulated calendar,
    /// which starts at `anchor` (the original purchase) and runs `factor` times
    /// faster than the clock; so twelve monthly renewals make one simulated year.
    ///
    /// Nil when the answer cannot be computed (the simulated dates leave the
    /// calendar's range) or would not be later than `start`: callers end the
    /// subscription instead of looping on a period that never passes.
    func subscriptionTime(after start: Date, anchor: Date? = nil, period: SubscriptionPeriod, count: Int = 1) -> Date? {
        let factor = settings.timeRate.factor
        let origin = anchor ?? start
        let simulatedStart = origin.addingTimeInterval(start.timeIntervalSince(origin) * factor)
        guard let simulatedEnd = try? period.date(after: simulatedStart, count: count) else { return nil }
        let end = origin.addingTimeInterval(simulatedEnd.timeIntervalSince(origin) / factor)
        return end > start ? end : nil
    }

    /// When the period after the subscription's current one ends: a whole
    /// number of periods after the start of its cycle, so that the billing day
    /// survives shorter months; nil as for ``subscriptionTime(after:anchor:period:count:)``,
    /// or when the answer is not later than the current period's end.
    func nextExpiration(of subscription: SubscriptionRecord, period: SubscriptionPeriod) -> Date? {
        let anchor = anchor(of: subscription)
        guard let start = subscription.cycleStart, let paid = subscription.cyclePeriods, paid >= 0 else {
            return subscriptionTime(after: subscription.expirationDate, anchor: anchor, period: period)
        }
        let (count, overflow) = paid.addingReportingOverflow(1)
        guard !overflow, let end = subscriptionTime(after: start, anchor: anchor, period: period, count: count),
              end > subscription.expirationDate else { return nil }
        return end
    }

    /// When the subscription's first transaction was bought: the origin of its simulated calendar.
    func anchor(of subscription: SubscriptionRecord) -> Date? {
        transaction(id: subscription.originalID)?.purchaseDate
    }

    func scaled(_ days: Double, after start: Date) -> Date {
        start.addingTimeInterval(days * 86_400 / settings.timeRate.factor)
    }

    /// Whether the account never subscribed in this group: Apple offers an
    /// introductory offer once per group.
    func isEligibleForIntroductoryOffer(groupID: String) -> Bool {
        !records.contains { record in
            catalog[record.transaction.productID]?.subscription?.groupID == groupID
                && catalog[record.transaction.productID]?.type == .autoRenewable
        }
    }

    private func enterBillingTrouble(_ subscription: inout SubscriptionRecord, period: SubscriptionPeriod) {
        if settings.billingGracePeriodEnabled {
            subscription.state = .inGracePeriod
            let days = period.unit == .week || (period.unit == .day && period.value <= 7)
                ? Self.gracePeriodDays.weekly : Self.gracePeriodDays.other
            subscription.stateEndsAt = scaled(days, after: subscription.expirationDate)
        } else {
            subscription.state = .inBillingRetryPeriod
            subscription.stateEndsAt = scaled(Self.billingRetryDays, after: subscription.expirationDate)
        }
    }

    private func renew(_ subscription: inout SubscriptionRecord, purchaseDate: Date, expiration: Date) -> StoreTransaction {
        let quantity = recordIndex[subscription.latestTransactionID].map { records[$0].transaction.quantity } ?? 1
        let renewal = record(productID: subscription.productID, originalID: subscription.originalID,
                             quantity: quantity, orderToken: subscription.orderToken, userID: subscription.userID,
                             purchaseDate: purchaseDate, expirationDate: expiration, reason: .renewal)
        subscription.latestTransactionID = renewal.id
        subscription.expirationDate = expiration
        // `nextExpiration` computed `expiration` from one period more, without overflow.
        if let paid = subscription.cyclePeriods { subscription.cyclePeriods = paid + 1 }
        subscription.state = .subscribed
        subscription.stateEndsAt = nil
        return renewal
    }
}

extension SimulatedPaymentQueue {
    /// The renewal state of the subscription that began with
    /// `originalTransactionID`, for the engine's subscription status: grace
    /// period and billing retry are known only to the store.
    public func renewalState(forOriginalTransactionID originalTransactionID: String) async -> SubscriptionRenewalState? {
        await processRenewals()
        // After a change of product in the group, several subscriptions share
        // the original transaction: the one that still runs, else the latest, answers.
        guard let record = subscriptions.values.filter({ $0.originalID == originalTransactionID })
            .max(by: { ($0.state.grantsAccess ? 1 : 0, $0.expirationDate) < ($1.state.grantsAccess ? 1 : 0, $1.expirationDate) })
        else { return nil }
        switch record.state {
        case .subscribed: return .active(willRenew: record.willAutoRenew)
        case .inGracePeriod: return .inGracePeriod(until: record.stateEndsAt ?? record.expirationDate)
        case .inBillingRetryPeriod: return .inBillingRetry
        case .expired, .revoked: return .expired
        }
    }
}
