#if !canImport(StoreKit)
import Foundation

/// The subscription facts of a product the scripted store sells (not Apple's API).
package struct ScriptedSubscription: Sendable {
    /// An introductory offer.
    package struct Offer: Sendable {
        package var paymentMode: Product.SubscriptionOffer.PaymentMode
        package var unit: Product.SubscriptionPeriod.Unit
        package var value: Int
        package var periodCount: Int
        package var displayPrice: String

        package init(paymentMode: Product.SubscriptionOffer.PaymentMode, unit: Product.SubscriptionPeriod.Unit, value: Int = 1,
                     periodCount: Int = 1, displayPrice: String) {
            self.paymentMode = paymentMode
            self.unit = unit
            self.value = value
            self.periodCount = periodCount
            self.displayPrice = displayPrice
        }
    }

    package var groupID: String
    package var unit: Product.SubscriptionPeriod.Unit
    package var value: Int
    package var groupLevel: Int
    package var introductoryOffer: Offer?

    package init(groupID: String, unit: Product.SubscriptionPeriod.Unit, value: Int = 1, groupLevel: Int = 1,
                 introductoryOffer: Offer? = nil) {
        self.groupID = groupID
        self.unit = unit
        self.value = value
        self.groupLevel = groupLevel
        self.introductoryOffer = introductoryOffer
    }
}

extension ScriptedAppStore {
    /// Puts a product on sale.
    package func addProduct(_ id: String, type: Product.ProductType, displayName: String, description: String = "",
                            price: Decimal, displayPrice: String, currencyCode: String = "USD", isFamilyShareable: Bool = false,
                            subscription: ScriptedSubscription? = nil) {
        let info = subscription.map { sub in
            Product.SubscriptionInfo(
                introductoryOffer: sub.introductoryOffer.map { offer in
                    Product.SubscriptionOffer(price: 0, displayPrice: offer.displayPrice,
                                              period: Product.SubscriptionPeriod(unit: offer.unit, value: offer.value),
                                              periodCount: offer.periodCount, paymentMode: offer.paymentMode)
                },
                subscriptionGroupID: sub.groupID,
                subscriptionPeriod: Product.SubscriptionPeriod(unit: sub.unit, value: sub.value),
                scriptedGroupLevel: sub.groupLevel)
        }
        let product = Product(id: id, type: type, displayName: displayName, description: description, price: price,
                              displayPrice: displayPrice, isFamilyShareable: isFamilyShareable, subscription: info,
                              scriptedCurrencyCode: currencyCode)
        state.withLock { $0.products[id] = product }
    }

    /// Takes a product off sale (its transactions stay).
    package func removeProduct(_ id: String) {
        state.withLock { $0.products[id] = nil }
    }

    /// A transaction a process left unfinished before it was killed: charged,
    /// never sent to a listener. Returns its id.
    @discardableResult
    package func addUnfinishedTransaction(productID: String, appAccountToken: UUID?, quantity: Int = 1,
                                          failure: VerificationResult<Transaction>.VerificationError? = nil) -> UInt64? {
        state.withLock { s in
            guard let product = s.products[productID] else { return nil }
            return Self.charge(&s, product, appAccountToken: appAccountToken, quantity: quantity, failure: failure).transaction.id
        }
    }

    /// A purchase made outside this app (another device, an offer code): a new
    /// transaction, sent to every `Transaction.updates` listener. Returns its
    /// id once every listener has processed it.
    @discardableResult
    package func purchaseOutsideTheApp(productID: String, appAccountToken: UUID? = nil,
                                       failure: VerificationResult<Transaction>.VerificationError? = nil) async -> UInt64? {
        let record = state.withLock { s -> Record? in
            guard let product = s.products[productID] else { return nil }
            return Self.charge(&s, product, appAccountToken: appAccountToken, quantity: 1, failure: failure)
        }
        guard let record else { return nil }
        await sendUpdate(record.result)
        return record.transaction.id
    }

    /// Refunds a transaction: it gets a revocation date and reason, and goes
    /// to every `Transaction.updates` listener.
    package func refund(_ id: UInt64, reason: Transaction.RevocationReason = .other) async {
        await change(id) { transaction, now in
            transaction.with(revocationDate: now, revocationReason: reason)
        }
    }

    /// Renews an auto-renewable subscription: a new transaction with the same
    /// original id and the next period, sent to every `Transaction.updates`
    /// listener. Returns its id.
    @discardableResult
    package func renew(_ originalID: UInt64) async -> UInt64? {
        let record = state.withLock { s -> Record? in
            guard let last = s.records.last(where: { $0.transaction.originalID == originalID }),
                  let product = s.products[last.transaction.productID] else { return nil }
            return Self.charge(&s, product, appAccountToken: last.transaction.appAccountToken, quantity: 1, failure: nil,
                               originalID: originalID, reason: .renewal)
        }
        guard let record else { return nil }
        await sendUpdate(record.result)
        return record.transaction.id
    }

    /// Upgrades a subscription to a product of higher service in its group:
    /// the running transaction is marked upgraded and a transaction of the
    /// new product, with the same original id, starts now. Both go to every
    /// `Transaction.updates` listener. Returns the new transaction's id.
    @discardableResult
    package func upgrade(_ originalID: UInt64, to productID: String) async -> UInt64? {
        let changed = state.withLock { s -> (old: Record, new: Record)? in
            guard let index = s.records.lastIndex(where: { $0.transaction.originalID == originalID }),
                  let product = s.products[productID] else { return nil }
            s.records[index].transaction = s.records[index].transaction.with(isUpgraded: true)
            let old = s.records[index]
            let new = Self.charge(&s, product, appAccountToken: old.transaction.appAccountToken, quantity: 1, failure: nil,
                                  originalID: originalID)
            return (old, new)
        }
        guard let changed else { return nil }
        await sendUpdate(changed.old.result)
        await sendUpdate(changed.new.result)
        return changed.new.transaction.id
    }

    /// Changes how StoreKit's verification of a transaction ends from now on:
    /// `failure`, or verified with nil (as when the App Store's certificates
    /// are valid again after a `revokedCertificate`). Nothing is sent.
    package func setVerificationFailure(of id: UInt64, to failure: VerificationResult<Transaction>.VerificationError?) {
        state.withLock { s in
            guard let index = s.records.firstIndex(where: { $0.transaction.id == id }) else { return }
            s.records[index].failure = failure
        }
    }

    /// Sets what `Product.SubscriptionInfo.status(for:)` says about a
    /// subscription; without it, a running subscription is `subscribed` and
    /// renews, an ended one `expired`.
    package func setRenewal(_ originalID: UInt64, state renewalState: Product.SubscriptionInfo.RenewalState, willAutoRenew: Bool,
                            gracePeriodExpirationDate: Date? = nil, isRenewalInfoVerified: Bool = true) {
        state.withLock {
            $0.renewals[originalID] = Renewal(state: renewalState, willAutoRenew: willAutoRenew,
                                              gracePeriodExpirationDate: gracePeriodExpirationDate,
                                              isRenewalInfoVerified: isRenewalInfoVerified)
        }
    }

    /// The user buys a promoted product on the App Store: a purchase intent
    /// goes to every `PurchaseIntent.intents` listener. Returns once each has
    /// processed it (a listener that buys has its answer by then).
    package func promote(_ productID: String) async {
        guard let product = state.withLock({ $0.products[productID] }) else { return }
        await sendIntent(PurchaseIntent(product: product))
    }

    private func change(_ id: UInt64, _ body: (Transaction, Date) -> Transaction) async {
        let changed = state.withLock { s -> Record? in
            guard let index = s.records.firstIndex(where: { $0.transaction.id == id }) else { return nil }
            s.records[index].transaction = body(s.records[index].transaction, s.now)
            return s.records[index]
        }
        if let changed { await sendUpdate(changed.result) }
    }
}

extension Transaction {
    func with(revocationDate: Date? = nil, revocationReason: Transaction.RevocationReason? = nil, isUpgraded: Bool? = nil) -> Transaction {
        Transaction(id: id, originalID: originalID, productID: productID, subscriptionGroupID: subscriptionGroupID,
                    purchaseDate: purchaseDate, expirationDate: expirationDate, purchasedQuantity: purchasedQuantity,
                    isUpgraded: isUpgraded ?? self.isUpgraded, revocationDate: revocationDate ?? self.revocationDate,
                    revocationReason: revocationReason ?? self.revocationReason, productType: productType,
                    appAccountToken: appAccountToken, environment: environment, reason: reason, scriptedJWS: scriptedJWS)
    }
}
#endif
