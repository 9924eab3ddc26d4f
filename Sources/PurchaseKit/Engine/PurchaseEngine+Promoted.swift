import Foundation

/// What the app does with a purchase the store started (a promoted in-app
/// purchase the user tapped on the App Store).
public enum PromotedPurchaseDecision: Sendable, Hashable {
    /// Buy it now for `user`, as an ordinary purchase whose order has source
    /// ``OrderSource/storeInitiated``: the order is saved before the payment
    /// sheet shows, and the payment carries its token.
    case accept(user: String)
    /// Not now (onboarding, login, a sale screen first): the engine keeps the
    /// intent until the app resumes or declines it
    /// (``PurchaseEngine/resumePromotedPurchase(id:user:)``).
    case `defer`
    /// Do not buy it. Nothing was paid, so nothing is owed; the store forgets
    /// the intent, as StoreKit does with an intent the app does not buy.
    case decline
}

/// Decides a promoted purchase. It may show UI, but answer `.defer` rather
/// than wait long: the engine waits for the decision as its own work.
public typealias PromotedPurchaseHandler = @Sendable (PromotedPurchaseIntent) async -> PromotedPurchaseDecision

/// The engine's promoted-purchase state: the app's handler and the intents it deferred.
struct PromotedPurchaseBook {
    var handler: PromotedPurchaseHandler?
    var deferred: [PromotedPurchaseIntent] = []
}

extension PurchaseEngine {
    /// Sets what the engine does with a purchase the store started. Set it
    /// before ``start()``: the store may hand over an intent the moment the
    /// engine attaches (the App Store launches the app for it).
    ///
    /// The handler only sees intents, which come **before** any payment. A
    /// store-initiated transaction that is already paid (an offer code, a
    /// store that buys promoted purchases itself) is never put to the
    /// handler and never declined: it is credited like any payment, to the
    /// current user (``setCurrentUser(_:)``), or, with nobody logged in, kept
    /// as a `needsAttention` order for ``assign(orderID:toUser:)``.
    ///
    /// Without a handler (nil, the default), an intent is accepted for the
    /// current user, or deferred when nobody is logged in.
    public func setPromotedPurchaseHandler(_ handler: PromotedPurchaseHandler?) {
        promotions.handler = handler
    }

    /// The promoted purchases deferred and not yet resumed or declined, oldest
    /// first. Kept in memory: the App Store does not hand an intent over
    /// again, so one still deferred when the process ends is gone (nothing
    /// was paid for it).
    public var deferredPromotedPurchases: [PromotedPurchaseIntent] {
        promotions.deferred
    }

    /// Buys a deferred promoted purchase now, for `user`.
    ///
    /// If the purchase throws before the store took a payment (payments not
    /// allowed, the products, the order server or the store unreachable,
    /// another payment in flight, the call cancelled before its order was
    /// made), the intent stays deferred and may be resumed again. After any other error it is gone: the payment may have
    /// started, and its outcome arrives as events.
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound`` when no deferred
    ///   intent has this id; otherwise what ``purchase(productID:user:quantity:metadata:promotionalOffer:)`` throws.
    public func resumePromotedPurchase(id: String, user userID: String) async throws -> PurchaseResult {
        guard let index = promotions.deferred.firstIndex(where: { $0.id == id }) else {
            throw PurchaseKitError(.orderNotFound, "There is no deferred promoted purchase '\(id)'.",
                                   advice: "List them with deferredPromotedPurchases; a declined or resumed one is gone.")
        }
        let intent = promotions.deferred.remove(at: index)
        do {
            return try await buy(intent, user: userID)
        } catch let error as PurchaseKitError where Self.chargedNothing(error) {
            promotions.deferred.append(intent)
            throw error
        }
    }

    /// Declines a deferred promoted purchase: nothing is bought.
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound`` when no deferred intent has this id.
    public func declinePromotedPurchase(id: String) throws {
        guard let index = promotions.deferred.firstIndex(where: { $0.id == id }) else {
            throw PurchaseKitError(.orderNotFound, "There is no deferred promoted purchase '\(id)'.",
                                   advice: "List them with deferredPromotedPurchases.")
        }
        let intent = promotions.deferred.remove(at: index)
        log(.info, "A deferred promoted purchase was declined", ["intent": intent.id, "productID": intent.productID])
    }

    /// The store hands over an intent (through its ``EngineQueueObserver``).
    /// The decision runs as engine work, so the store is not held while the app decides.
    func paymentQueue(didReceive intent: PromotedPurchaseIntent) async {
        log(.info, "The store asks for a promoted purchase", ["intent": intent.id, "productID": intent.productID])
        spawn { engine in await engine.decide(intent) }
    }

    private func decide(_ intent: PromotedPurchaseIntent) async {
        let decision: PromotedPurchaseDecision
        if let handler = promotions.handler {
            decision = await handler(intent)
        } else {
            decision = currentUserID.map { .accept(user: $0) } ?? .defer
        }
        switch decision {
        case .accept(let userID):
            do {
                let result = try await buy(intent, user: userID)
                log(.info, "A promoted purchase was bought", ["intent": intent.id, "orderID": result.order.id])
            } catch {
                log(.warning, "A promoted purchase could not be bought", ["intent": intent.id, "error": "\(error)"])
            }
        case .defer:
            promotions.deferred.append(intent)
            log(.info, "A promoted purchase was deferred", ["intent": intent.id])
        case .decline:
            log(.info, "A promoted purchase was declined", ["intent": intent.id])
        }
    }

    private func buy(_ intent: PromotedPurchaseIntent, user userID: String) async throws -> PurchaseResult {
        try await purchase(productID: intent.productID, user: userID, quantity: 1, metadata: [:], promotionalOffer: nil,
                           source: .storeInitiated)
    }

    /// Whether a purchase that threw never reached the store's payment sheet.
    private static func chargedNothing(_ error: PurchaseKitError) -> Bool {
        let codes: Set<PurchaseKitError.Code> = [
            .paymentsNotAllowed, .productRequestFailed, .purchaseInProgress, .orderGenerationFailed,
            .invalidConfiguration, .timeout, .storeUnavailable,
        ]
        // Cancelled before its order was made: nothing reached the store.
        if error.code == .cancelled, error.orderID == nil { return true }
        return codes.contains(error.code)
    }
}
