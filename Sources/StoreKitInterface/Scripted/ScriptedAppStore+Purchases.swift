#if !canImport(StoreKit)
import Foundation

/// What the next purchase does (not Apple's API).
package enum PurchaseScript: Sendable {
    /// Charges and answers `.success(.verified)`; buying a non-consumable the
    /// account owns answers with the transaction it owns, charging nothing.
    case pay
    /// Charges and answers `.success(.unverified)` with this reason.
    case payUnverified(VerificationResult<Transaction>.VerificationError)
    /// Answers `.pending` (Ask to Buy, or an action the user must take); the
    /// purchase waits for ``ScriptedAppStore/approvePendingPurchase()``.
    case pending
    /// Answers `.userCancelled`.
    case userCancels
    /// Throws the error, as `purchase(options:)` does.
    case fails(any Error & Sendable)
    /// The purchase sheet stays open: the call answers only when a test
    /// closes it with ``ScriptedAppStore/closeSheet(with:)``.
    case sheetStaysOpen
}

/// A call of `purchase(options:)`, as the store received it (not Apple's API).
package struct PurchaseCall: Sendable, Hashable {
    package var productID: String
    package var appAccountToken: UUID?
    /// The `.quantity(_:)` option, if the app gave one.
    package var quantity: Int?
    /// The offer id of the `.promotionalOffer(...)` option, if the app gave one.
    package var promotionalOfferID: String?

    package init(productID: String, appAccountToken: UUID?, quantity: Int?, promotionalOfferID: String? = nil) {
        self.productID = productID
        self.appAccountToken = appAccountToken
        self.quantity = quantity
        self.promotionalOfferID = promotionalOfferID
    }
}

struct PendingPurchase {
    var product: Product
    var appAccountToken: UUID?
    var quantity: Int
}

extension ScriptedAppStore {
    /// Scripts the next purchases, in order; once they are used up, purchases pay.
    package func scriptNextPurchases(_ scripts: PurchaseScript...) {
        state.withLock { $0.scripts.append(contentsOf: scripts) }
    }

    /// Every purchase the app asked for, oldest first.
    package var purchaseCalls: [PurchaseCall] { state.withLock { $0.purchaseCalls } }

    /// Returns once the app has called `purchase(options:)` at least `count` times.
    package func waitForPurchaseCalls(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.purchaseCalls.count >= count { return true }
                s.purchaseCallWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// How many purchase sheets are open.
    package var openSheetCount: Int { state.withLock { $0.openSheets.count } }

    /// Closes the oldest open purchase sheet: the purchase goes on as
    /// `script` says. Returns once StoreKit has answered that purchase call.
    package func closeSheet(with script: PurchaseScript) async {
        guard let sheet = state.withLock({ s in s.openSheets.isEmpty ? nil : s.openSheets.removeFirst() }) else { return }
        sheet.continuation.resume(returning: script)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let answered = state.withLock { s -> Bool in
                if s.answeredCalls.contains(sheet.call) { return true }
                s.answerWaiters.append((sheet.call, continuation))
                return false
            }
            if answered { continuation.resume() }
        }
    }

    /// How many purchases wait for approval.
    package var pendingPurchaseCount: Int { state.withLock { $0.pending.count } }

    /// Approves the oldest pending purchase: it is charged, and its
    /// transaction goes to every `Transaction.updates` listener. Returns the
    /// transaction's id once every listener has processed it.
    @discardableResult
    package func approvePendingPurchase() async -> UInt64? {
        let approved = state.withLock { s -> Record? in
            guard !s.pending.isEmpty else { return nil }
            let purchase = s.pending.removeFirst()
            return Self.charge(&s, purchase.product, appAccountToken: purchase.appAccountToken, quantity: purchase.quantity,
                               failure: nil)
        }
        guard let approved else { return nil }
        await sendUpdate(approved.result)
        return approved.transaction.id
    }

    /// Declines the oldest pending purchase. StoreKit tells the app nothing.
    package func declinePendingPurchase() {
        state.withLock { s in if !s.pending.isEmpty { s.pending.removeFirst() } }
    }

    /// What `purchase(options:)` does.
    func purchase(_ product: Product, options: Set<Product.PurchaseOption>) async throws -> Product.PurchaseResult {
        var token: UUID?
        var quantity: Int?
        var offerID: String?
        for option in options {
            switch option.scripted {
            case .appAccountToken(let value): token = value
            case .quantity(let value): quantity = value
            case .promotionalOffer(let id, _, _, _, _): offerID = id
            }
        }
        let call = PurchaseCall(productID: product.id, appAccountToken: token, quantity: quantity, promotionalOfferID: offerID)
        var (index, script) = state.withLock { s -> (Int, PurchaseScript) in
            s.purchaseCalls.append(call)
            return (s.purchaseCalls.count - 1, s.scripts.isEmpty ? .pay : s.scripts.removeFirst())
        }
        if case .sheetStaysOpen = script {
            // Whoever waits for this call finds the sheet open.
            script = await withCheckedContinuation { continuation in
                state.withLock { $0.openSheets.append((index, continuation)) }
                resumePurchaseCallWaiters()
            }
        } else {
            resumePurchaseCallWaiters()
        }
        defer { answered(index) }
        let units = quantity ?? 1
        return try state.withLock { s -> Product.PurchaseResult in
            guard s.products[product.id] != nil else { throw Product.PurchaseError.productUnavailable }
            let allowsQuantity = product.type == .consumable || product.type == .nonRenewable
            guard units >= 1, units <= 10, allowsQuantity || units == 1 else { throw Product.PurchaseError.invalidQuantity }
            switch script {
            case .pay, .sheetStaysOpen:
                if let owned = Self.owned(s, product) { return .success(owned.result) }
                return .success(Self.charge(&s, product, appAccountToken: token, quantity: units, failure: nil).result)
            case .payUnverified(let failure):
                return .success(Self.charge(&s, product, appAccountToken: token, quantity: units, failure: failure).result)
            case .pending:
                s.pending.append(PendingPurchase(product: product, appAccountToken: token, quantity: units))
                return .pending
            case .userCancels:
                return .userCancelled
            case .fails(let error):
                throw error
            }
        }
    }

    private func answered(_ call: Int) {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.answeredCalls.insert(call)
            let ready = s.answerWaiters.filter { $0.call == call }.map(\.continuation)
            s.answerWaiters.removeAll { $0.call == call }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    private func resumePurchaseCallWaiters() {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            let count = s.purchaseCalls.count
            let ready = s.purchaseCallWaiters.filter { $0.count <= count }.map(\.continuation)
            s.purchaseCallWaiters.removeAll { $0.count <= count }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    /// The transaction of a non-consumable the account owns, or of an
    /// auto-renewable subscription of the same group still running: buying
    /// again charges nothing and answers with it.
    private static func owned(_ s: State, _ product: Product) -> Record? {
        s.records.last { record in
            let transaction = record.transaction
            guard transaction.revocationDate == nil, !transaction.isUpgraded else { return false }
            if product.type == .nonConsumable { return transaction.productID == product.id }
            if product.type == .autoRenewable, let group = product.subscription?.subscriptionGroupID {
                return transaction.subscriptionGroupID == group && (transaction.expirationDate ?? .distantPast) > s.now
            }
            return false
        }
    }

    /// Charges the account: a new, unfinished transaction.
    static func charge(_ s: inout State, _ product: Product, appAccountToken: UUID?, quantity: Int,
                       failure: VerificationResult<Transaction>.VerificationError?, originalID: UInt64? = nil,
                       reason: Transaction.Reason = .purchase) -> Record {
        s.nextTransactionID += 1
        let id = s.nextTransactionID
        var expiration: Date?
        if let period = product.subscription?.subscriptionPeriod {
            expiration = Self.date(after: s.now, period)
        }
        let transaction = Transaction(
            id: id, originalID: originalID ?? id, productID: product.id,
            subscriptionGroupID: product.subscription?.subscriptionGroupID, purchaseDate: s.now,
            expirationDate: expiration, purchasedQuantity: quantity, isUpgraded: false, revocationDate: nil,
            revocationReason: nil, productType: product.type, appAccountToken: appAccountToken, environment: .sandbox,
            reason: reason, scriptedJWS: Self.jws(id: id, productID: product.id))
        let record = Record(transaction: transaction, failure: failure)
        s.records.append(record)
        return record
    }

    /// One subscription period after `date`, on the Gregorian calendar in UTC.
    static func date(after date: Date, _ period: Product.SubscriptionPeriod) -> Date? {
        var components = DateComponents()
        switch period.unit {
        case .day: components.day = period.value
        case .week: components.day = 7 * period.value
        case .month: components.month = period.value
        case .year: components.year = period.value
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(byAdding: components, to: date)
    }

    /// A stand-in for the App Store's signed form: a compact JWS (three
    /// base64url parts), the middle one naming the transaction.
    static func jws(id: UInt64, productID: String) -> String {
        let payload = Data(#"{"transactionId":"\#(id)","productId":"\#(productID)"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "eyJhbGciOiJFUzI1NiJ9.\(payload).scripted-signature-\(id)"
    }
}
#endif
