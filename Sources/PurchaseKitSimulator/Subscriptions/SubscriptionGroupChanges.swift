import Foundation
import PurchaseKit

/// How buying one subscription of a group changes the one the account holds
/// there, by the group's levels (``SubscriptionInfo/groupLevel``, 1 is the
/// highest level of service).
///
/// The rules are Apple's, as it documents ranking subscriptions in a group:
/// - **Upgrade** (a higher level): takes effect at once; the store refunds
///   the prorated rest of the old period, and the old transaction is marked
///   upgraded and ends.
/// - **Downgrade** (a lower level): the current subscription runs to its
///   next renewal date, then renews as the new product at its price.
/// - **Crossgrade** (the same level): at once when both have the same
///   duration, otherwise at the next renewal date.
///
/// A product without a level is taken as the same level as any other.
public enum SubscriptionChange: String, Sendable, Hashable, CaseIterable {
    case upgrade
    case downgrade
    case crossgrade

    /// What moving from `current` to `new` (two products of one group) is.
    public static func between(_ current: SubscriptionInfo, _ new: SubscriptionInfo) -> SubscriptionChange {
        guard let from = current.groupLevel, let to = new.groupLevel, from != to else { return .crossgrade }
        return to < from ? .upgrade : .downgrade
    }

    /// Whether the change takes effect at once (else at the next renewal date).
    public static func takesEffectAtOnce(from current: SubscriptionInfo, to new: SubscriptionInfo) -> Bool {
        switch between(current, new) {
        case .upgrade: return true
        case .downgrade: return false
        case .crossgrade: return current.period == new.period
        }
    }
}

/// A change of product within a group, waiting for the current period to end.
struct ScheduledChange: Sendable, Codable, Hashable {
    var productID: String
    /// The token of the payment that asked for it; nil for an offer code.
    var orderToken: String?
    var userID: String
    var quantity: Int
    /// An offer that makes the first period of the new product (an offer code).
    var offerPeriod: SubscriptionPeriod?
    var offerPeriodCount: Int?
}

extension SimulatedPaymentQueue {
    /// The subscription of the group that still grants access, other than `productID`'s.
    func activeSubscription(inGroup groupID: String, other productID: String) -> SubscriptionRecord? {
        subscriptions.values
            .filter { $0.productID != productID && $0.state.grantsAccess && subscriptionGroup(of: $0.productID) == groupID }
            .max { $0.expirationDate < $1.expirationDate }
    }

    func subscriptionGroup(of productID: String) -> String? {
        catalog[productID]?.subscription?.groupID
    }

    /// A purchase of the subscription `product` while the account holds
    /// another of its group: the updates that answer the payment, or nil when
    /// there is no such subscription (an ordinary purchase).
    ///
    /// Buying the product the account holds again cancels a change scheduled
    /// on it, as resubscribing to the current plan does on the App Store.
    func changeWithinGroup(to product: StoreProduct, quantity: Int, token: String?, userID: String,
                           offer: SubscriptionOffer?, at now: Date) -> [TransactionUpdate]? {
        guard let info = product.subscription else { return nil }
        if var own = subscriptions[product.id], own.state.grantsAccess {
            if own.scheduledChange != nil {
                own.scheduledChange = nil
                own.willAutoRenew = true
                subscriptions[product.id] = own
            }
            return nil
        }
        guard var current = activeSubscription(inGroup: info.groupID, other: product.id),
              let currentInfo = catalog[current.productID]?.subscription else { return nil }
        guard SubscriptionChange.takesEffectAtOnce(from: currentInfo, to: info) else {
            current.scheduledChange = ScheduledChange(productID: product.id, orderToken: token, userID: userID,
                                                      quantity: quantity, offerPeriod: nil, offerPeriodCount: nil)
            current.willAutoRenew = true
            subscriptions[current.productID] = current
            return [TransactionUpdate(kind: .scheduled, productID: product.id, orderToken: token, date: now)]
        }
        if let index = recordIndex[current.latestTransactionID] {
            records[index].isUpgraded = true
            records[index].proratedRefund = proratedRefund(of: records[index], at: now)
        }
        current.state = .expired
        current.expirationDate = min(current.expirationDate, now)
        current.willAutoRenew = false
        current.scheduledChange = nil
        current.stateEndsAt = nil
        current.wasUpgraded = true
        subscriptions[current.productID] = current
        guard let transaction = charge(product, quantity: quantity, orderToken: token, userID: userID, at: now,
                                       offer: offer, originalID: current.originalID) else { return nil }
        return [update(.purchased, for: transaction)]
    }

    /// Ends every other subscription of the group that has not ended: a user
    /// holds at most one subscription per group.
    func endOthers(inGroup groupID: String, except productID: String) {
        for (id, var record) in subscriptions where id != productID && subscriptionGroup(of: id) == groupID {
            guard record.state != .expired, record.state != .revoked else { continue }
            record.state = .expired
            record.willAutoRenew = false
            record.scheduledChange = nil
            record.stateEndsAt = nil
            subscriptions[id] = record
        }
    }

    /// At the end of a period with a change scheduled: the old product ends,
    /// the new one starts where it stopped (same original transaction), and
    /// its transaction carries the token of the payment that asked for it.
    /// Returns the new subscription and its update; nil when the new
    /// product's period cannot be computed (the subscription then ends).
    func takeScheduledChange(_ subscription: inout SubscriptionRecord) -> (SubscriptionRecord, TransactionUpdate)? {
        guard let change = subscription.scheduledChange else { return nil }
        subscription.scheduledChange = nil
        subscription.state = .expired
        subscription.willAutoRenew = false
        guard let period = change.offerPeriod ?? catalog[change.productID]?.subscription?.period,
              let expiration = subscriptionTime(after: subscription.expirationDate, anchor: anchor(of: subscription),
                                                period: period, count: change.offerPeriodCount ?? 1) else { return nil }
        let transaction = record(productID: change.productID, originalID: subscription.originalID, quantity: change.quantity,
                                 orderToken: change.orderToken, userID: change.userID,
                                 purchaseDate: subscription.expirationDate, expirationDate: expiration, reason: .renewal)
        var next = SubscriptionRecord(
            productID: change.productID, originalID: subscription.originalID, userID: change.userID,
            orderToken: change.orderToken, latestTransactionID: transaction.id, expirationDate: expiration,
            willAutoRenew: true, state: .subscribed, stateEndsAt: nil)
        // The new product's cycle starts where the old one stopped, or where the offer ends.
        (next.cycleStart, next.cyclePeriods) = change.offerPeriod == nil ? (subscription.expirationDate, 1) : (expiration, 0)
        return (next, update(.purchased, for: transaction))
    }

    /// What the period of `record` cost (an offer's price, else the list
    /// price) times the share of it left at `now`, rounded to cents: what the
    /// App Store refunds of a period an upgrade cuts short. A free trial refunds nothing.
    func proratedRefund(of record: TransactionRecord, at now: Date) -> Decimal? {
        let transaction = record.transaction
        guard let price = record.pricePaid ?? catalog[transaction.productID]?.price, let end = transaction.expirationDate,
              end > transaction.purchaseDate else { return nil }
        let left = max(0, min(1, end.timeIntervalSince(now) / end.timeIntervalSince(transaction.purchaseDate)))
        var exact = price * Decimal(left)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &exact, 2, .plain)
        return rounded
    }

    /// What an offer's periods cost: nothing for a free trial, the offer's
    /// price once when paid up front, once per period when paid as you go.
    /// Nil when the offer shows no price (the list price is then assumed).
    static func offerCost(_ mode: OfferPaymentMode, displayPrice: String?, periods: Int) -> Decimal? {
        if mode == .freeTrial { return 0 }
        guard let text = displayPrice, let price = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
        return mode == .payUpFront ? price : price * Decimal(periods)
    }

    /// What the store refunded of this transaction's price when an upgrade
    /// (or an immediate crossgrade) cut its period short; nil otherwise.
    public func proratedRefund(transactionID: String) -> Decimal? {
        recordIndex[transactionID].flatMap { records[$0].proratedRefund }
    }

    /// The account's subscription in a group after bringing it up to
    /// `clock.now`: the one granting access, else the one that ended last;
    /// nil when the account never subscribed there.
    public func subscriptionStatus(groupID: String) async -> SubscriptionSnapshot? {
        await processRenewals()
        return subscriptions.values.filter { subscriptionGroup(of: $0.productID) == groupID }
            .max { ($0.state.grantsAccess ? 1 : 0, $0.expirationDate) < ($1.state.grantsAccess ? 1 : 0, $1.expirationDate) }?
            .status
    }

    /// Whether this transaction's period was ended early by an upgrade or an immediate crossgrade.
    public func isUpgraded(transactionID: String) -> Bool {
        recordIndex[transactionID].map { records[$0].isUpgraded ?? false } ?? false
    }
}
