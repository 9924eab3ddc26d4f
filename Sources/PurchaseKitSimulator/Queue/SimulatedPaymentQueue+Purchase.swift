import Foundation
import PurchaseKit

extension SimulatedPaymentQueue {
    /// Takes a payment and, before returning, delivers what it immediately
    /// causes: `.purchasing`, then `.purchased`, `.cancelled`, `.failed`,
    /// `.deferred` or `.interrupted`, as scripted.
    ///
    /// An unknown product fails with `.productNotAvailable`, a quantity the App
    /// Store does not allow (below one, above ten, or other than one for a
    /// non-consumable or an auto-renewable subscription) with `.paymentInvalid`. Buying a non-consumable the account owns, or an
    /// active subscription again, re-delivers the existing transaction without a
    /// new charge, as the App Store does. Buying another subscription of a
    /// group the account holds is an upgrade, downgrade or crossgrade
    /// (``SubscriptionChange``): at once (`.purchased`, the old period ends and
    /// is marked upgraded) or at the renewal date (`.scheduled` now, `.purchased` then).
    /// A payment's promotional offer is checked first; a refused one fails
    /// with `.invalidOffer` or `.ineligibleForOffer` and charges nothing.
    ///
    /// - Throws: ``PurchaseKitError/Code/paymentsNotAllowed`` when payments are
    ///   switched off (``setCanMakePayments(_:)``): the store does not take the payment.
    public func add(_ payment: Payment) async throws {
        try await add(payment, onOutcome: nil)
    }

    /// ``add(_:)``, calling `onOutcome` just before the payment's outcome is
    /// sent to the observer (or held back, by a delivery fault): the fault
    /// simulation's check that a process has one payment in flight per user
    /// and product counts a payment as answered from then on.
    func add(_ payment: Payment, onOutcome: (@Sendable () -> Void)?) async throws {
        paymentsReceived += 1
        if !paymentWaiters.isEmpty { resumePaymentWaiters() }
        try await waitLatency()
        guard paymentsAllowed else {
            throw PurchaseKitError(.paymentsNotAllowed, "This device may not make payments.",
                                   advice: "Ask the user to check Screen Time restrictions or device management.")
        }
        let (behavior, faults) = nextOutcome(for: payment.productID)
        let token = faults.losesOrderToken ? nil : payment.orderToken
        let now = clock.now
        func report(_ kind: TransactionUpdate.Kind) -> TransactionUpdate {
            TransactionUpdate(kind: kind, productID: payment.productID, orderToken: token, date: now)
        }
        func unpaid(_ kind: UnpaidPaymentRecord.UnpaidKind) -> TransactionUpdate {
            unpaidUpdate(kind, productID: payment.productID, orderToken: token)
        }
        // Every batch below carries the payment's outcome.
        func reply(_ updates: [TransactionUpdate], faults: DeliveryFaults) async {
            onOutcome?()
            await send(updates, faults: faults)
        }
        guard let product = catalog[payment.productID], !removedFromSale.contains(product.id) else {
            await reply([report(.purchasing), unpaid(.failed(.productNotAvailable))], faults: faults)
            return
        }
        guard product.type.allowedQuantities.contains(payment.quantity) else {
            await reply([report(.purchasing), unpaid(.failed(.paymentInvalid))], faults: faults)
            return
        }
        var offer: SubscriptionOffer?
        if let signed = payment.promotionalOffer {
            switch checkPromotionalOffer(signed, for: product, at: now) {
            case .valid(let valid): offer = valid
            case .refused(let reason):
                await reply([report(.purchasing), unpaid(.failed(reason))], faults: faults)
                return
            }
        }
        // A hostile store may report another quantity than the payment's (see `DeliveryFaults`).
        let quantity = faults.transactionQuantity ?? payment.quantity
        switch behavior {
        case .success:
            if product.type == .autoRenewable,
               let answer = changeWithinGroup(to: product, quantity: quantity, token: token, userID: payment.userID,
                                              offer: offer, at: now) {
                await reply([report(.purchasing)] + answer, faults: faults)
                return
            }
            if let existing = owned(product) {
                // Nothing is charged: the existing transaction comes back, reported
                // against this payment (its token), as the store answers this payment.
                var answer = update(.purchased, for: existing)
                answer.orderToken = token
                await reply([report(.purchasing), answer], faults: faults)
                return
            }
            guard let transaction = charge(product, quantity: quantity, orderToken: token, userID: payment.userID, at: now,
                                           offer: offer) else {
                await reply([report(.purchasing), report(.failed(.paymentInvalid))], faults: faults)
                return
            }
            await reply([report(.purchasing), update(.purchased, for: transaction)], faults: faults)
        case .userCancel:
            await reply([report(.purchasing), unpaid(.cancelled)], faults: faults)
        case .fail(let reason):
            await reply([report(.purchasing), unpaid(.failed(reason))], faults: faults)
        case .failsThenPays, .cancelsThenPays:
            nextPendingNumber += 1
            pending.append(PendingPurchase(
                id: "pending-\(nextPendingNumber)", kind: .latePayment, productID: product.id, quantity: payment.quantity,
                orderToken: token, userID: payment.userID, requestedAt: now, paymentOrderToken: payment.orderToken,
                faults: faults, offer: offer))
            await reply([report(.purchasing), unpaid(behavior == .failsThenPays ? .failed(.networkError) : .cancelled)],
                       faults: faults)
        case .askToBuy, .interrupted:
            nextPendingNumber += 1
            let held = PendingPurchase(
                id: "pending-\(nextPendingNumber)", kind: behavior == .askToBuy ? .askToBuy : .interrupted,
                productID: product.id, quantity: quantity, orderToken: token, userID: payment.userID,
                requestedAt: now, paymentOrderToken: payment.orderToken, faults: faults, offer: offer)
            pending.append(held)
            await reply([report(.purchasing), report(behavior == .askToBuy ? .deferred : .interrupted)], faults: faults)
        }
    }

    /// The transaction the account already owns for `product`, when buying it
    /// again would not charge: a non-consumable not revoked, or a subscription still running.
    func owned(_ product: StoreProduct) -> StoreTransaction? {
        switch product.type {
        case .nonConsumable:
            return records.last { $0.transaction.productID == product.id && !$0.transaction.isRevoked }?.transaction
        case .autoRenewable:
            guard let subscription = subscriptions[product.id], subscription.state.grantsAccess else { return nil }
            return transaction(id: subscription.latestTransactionID)
        case .consumable, .nonRenewable:
            return nil
        }
    }

    /// Charges the account: records a new unfinished transaction and, for an
    /// auto-renewable subscription, starts its subscription. Nil, and nothing
    /// charged, when the subscription's first period cannot be computed.
    ///
    /// A subscription's first period is `offer`'s when one is given (a
    /// promotional offer or an offer code), else the introductory offer's
    /// when the account is eligible, else the product's. `originalID` is the
    /// original transaction of the subscription this one replaces in its
    /// group (an upgrade); every other subscription of the group ends.
    func charge(_ product: StoreProduct, quantity: Int, orderToken: String?, userID: String, at now: Date,
                offer: SubscriptionOffer? = nil, originalID: String? = nil) -> StoreTransaction? {
        var expiration: Date?
        var paid: Decimal?
        var offered = true
        if product.type == .autoRenewable, let info = product.subscription {
            if let offer {
                expiration = subscriptionTime(after: now, period: offer.period, count: offer.periodCount)
                paid = Self.offerCost(offer.paymentMode, displayPrice: offer.displayPrice, periods: offer.periodCount)
            } else if let offer = info.introductoryOffer, isEligibleForIntroductoryOffer(groupID: info.groupID) {
                expiration = subscriptionTime(after: now, period: offer.period, count: offer.periodCount)
                paid = Self.offerCost(offer.paymentMode, displayPrice: offer.displayPrice, periods: offer.periodCount)
            } else {
                expiration = subscriptionTime(after: now, period: info.period)
                offered = false
            }
            guard expiration != nil else { return nil }
        }
        let transaction = record(productID: product.id, originalID: originalID, quantity: quantity, orderToken: orderToken,
                                 userID: userID, purchaseDate: now, expirationDate: expiration, reason: .purchase)
        if let paid, let index = recordIndex[transaction.id] { records[index].pricePaid = paid }
        if product.type == .autoRenewable, let expiration {
            if let groupID = product.subscription?.groupID { endOthers(inGroup: groupID, except: product.id) }
            var subscription = SubscriptionRecord(
                productID: product.id, originalID: transaction.originalID, userID: userID, orderToken: orderToken,
                latestTransactionID: transaction.id, expirationDate: expiration, willAutoRenew: true,
                state: .subscribed, stateEndsAt: nil)
            // After an offer's periods, the regular ones start where the offer ended.
            (subscription.cycleStart, subscription.cyclePeriods) = offered ? (expiration, 0) : (now, 1)
            subscriptions[product.id] = subscription
        }
        return transaction
    }

    /// Makes, signs and stores a new unfinished transaction. Its `reason` is
    /// what the App Store says: `purchase` for a payment the user made (an
    /// upgrade too), `renewal` for a renewal or a change of tier that takes
    /// effect at the renewal date.
    func record(productID: String, originalID: String?, quantity: Int, orderToken: String?, userID: String,
                purchaseDate: Date, expirationDate: Date?, reason: TransactionReason) -> StoreTransaction {
        nextTransactionNumber += 1
        let id = String(nextTransactionNumber)
        var transaction = StoreTransaction(
            id: id, originalID: originalID, productID: productID, purchaseDate: purchaseDate,
            expirationDate: expirationDate, quantity: quantity, orderToken: orderToken, environment: environment,
            reason: reason)
        transaction.receipt = signer.receipt(for: transaction)
        recordIndex[id] = records.count
        records.append(TransactionRecord(transaction: transaction, userID: userID, isFinished: false, revocationSeen: false))
        return transaction
    }
}

extension SimulatedPaymentQueue {
    /// Returns once at least `count` payments were handed to ``add(_:)``
    /// (since the store was made): how a test knows a purchase call reached
    /// the store, without counting timers or polling.
    public func waitForPayments(count: Int) async {
        if paymentsReceived >= count { return }
        await withCheckedContinuation { paymentWaiters.append((count, $0)) }
    }

    /// Resumes the waiters whose count of payments is reached.
    func resumePaymentWaiters() {
        let ready = paymentWaiters.filter { $0.count <= paymentsReceived }
        paymentWaiters.removeAll { $0.count <= paymentsReceived }
        for waiter in ready { waiter.continuation.resume() }
    }
}
