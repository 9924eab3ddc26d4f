import PurchaseKit

extension SimulatedPaymentQueue {
    /// The user taps a promoted in-app purchase on the App Store. As with
    /// StoreKit 2's `PurchaseIntent`, nothing is paid: the store hands the app
    /// an intent, and the app buys the product (an ordinary payment, through
    /// ``add(_:)``) or not. With no observer attached the intent waits for
    /// ``attach(_:)``, as the App Store launches the app to hand it over.
    ///
    /// - Returns: the intent handed over.
    /// - Throws: ``PurchaseKitError/Code/invalidProductIdentifiers`` when the
    ///   store does not sell the product: the App Store shows no such promotion.
    @discardableResult
    public func promote(productID: String) async throws -> PromotedPurchaseIntent {
        guard isOnSale(productID) else { throw PurchaseKitError.invalidProductIdentifiers([productID]) }
        intentsStarted += 1
        let intent = PromotedPurchaseIntent(id: "intent-\(intentsStarted)", productID: productID, date: clock.now)
        if let observer = observer.value {
            await observer.paymentQueue(didReceive: intent)
        } else {
            undeliveredIntents.append(intent)
        }
        return intent
    }

    /// The store buys a promoted purchase itself, before the app has a say (a
    /// store set to buy promoted purchases at once, or an offer code redeemed
    /// on the App Store): the account is charged and `.purchased` arrives
    /// with `isStoreInitiated` and no order token. Paid: the app must credit it.
    ///
    /// - Returns: the new transaction.
    /// - Throws: ``PurchaseKitError/Code/invalidProductIdentifiers`` when the store does not sell the product.
    @discardableResult
    public func buyPromotedOutsideApp(productID: String, userID: String = "") async throws -> StoreTransaction {
        guard let product = catalog[productID], isOnSale(productID),
              let transaction = charge(product, quantity: 1, orderToken: nil, userID: userID, at: clock.now) else {
            throw PurchaseKitError.invalidProductIdentifiers([productID])
        }
        var paid = update(.purchased, for: transaction)
        paid.isStoreInitiated = true
        await send([paid], faults: faults(for: productID))
        return transaction
    }

    /// Hands the intents that found no observer to `observer`, oldest first.
    func deliverWaitingIntents(to observer: any PaymentQueueObserver) async {
        let waiting = undeliveredIntents
        undeliveredIntents = []
        for intent in waiting { await observer.paymentQueue(didReceive: intent) }
    }
}
