import Foundation
import PurchaseKit

extension SimulatedPaymentQueue {
    /// The purchases waiting for Ask to Buy approval, oldest first.
    public func pendingAskToBuy() -> [PendingPurchase] {
        pending.filter { $0.kind == .askToBuy }
    }

    /// The interrupted purchases waiting for the user, oldest first.
    public func pendingInterrupted() -> [PendingPurchase] {
        pending.filter { $0.kind == .interrupted }
    }

    /// A parent approves: the account is charged and `.purchased` is delivered,
    /// with no purchase call waiting for it.
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound`` when no Ask to Buy request has this id.
    public func approveAskToBuy(id: String) async throws {
        let held = try take(id: id, kind: .askToBuy)
        await complete(held)
    }

    /// A parent declines: `.failed(.declined)` is delivered; nothing is charged.
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound`` when no Ask to Buy request has this id.
    public func declineAskToBuy(id: String) async throws {
        let held = try take(id: id, kind: .askToBuy)
        await send([unpaidUpdate(.failed(.declined), productID: held.productID, orderToken: held.orderToken)],
                   faults: held.faults)
    }

    /// Approves the Ask to Buy request whose payment carried `orderToken` (the
    /// order id), even when the store lost the token on the transaction.
    public func approveAskToBuy(orderToken: String) async throws {
        try await approveAskToBuy(id: pendingID(orderToken: orderToken, kind: .askToBuy))
    }

    /// Declines the Ask to Buy request whose payment carried `orderToken`.
    public func declineAskToBuy(orderToken: String) async throws {
        try await declineAskToBuy(id: pendingID(orderToken: orderToken, kind: .askToBuy))
    }

    /// The user finished the interrupted purchase: the account is charged and `.purchased` is delivered.
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound`` when no interrupted purchase has this id.
    public func completeInterruptedPurchase(id: String) async throws {
        let held = try take(id: id, kind: .interrupted)
        await complete(held)
    }

    /// Payments reported failed or cancelled that the store will still charge.
    public func pendingLatePayments() -> [PendingPurchase] {
        pending.filter { $0.kind == .latePayment }
    }

    /// The store charges a payment it reported failed or cancelled: `.purchased` is delivered late.
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound`` when no such late payment waits.
    public func completeLatePayment(id: String) async throws {
        let held = try take(id: id, kind: .latePayment)
        await complete(held)
    }

    private func complete(_ held: PendingPurchase) async {
        guard let product = catalog[held.productID] else { return }
        // An approved subscription follows the group's rules as a direct purchase does.
        if product.type == .autoRenewable,
           let answer = changeWithinGroup(to: product, quantity: held.quantity, token: held.orderToken, userID: held.userID,
                                          offer: held.offer, at: clock.now) {
            await send(answer, faults: held.faults)
            return
        }
        if let existing = owned(product) {
            // Nothing is charged: the owned transaction answers this payment, as in `add`.
            var answer = update(.purchased, for: existing)
            answer.orderToken = held.orderToken
            await send([answer], faults: held.faults)
            return
        }
        guard let transaction = charge(product, quantity: held.quantity, orderToken: held.orderToken,
                                       userID: held.userID, at: clock.now, offer: held.offer) else {
            let refusal = TransactionUpdate(kind: .failed(.paymentInvalid), productID: held.productID,
                                            orderToken: held.orderToken, date: clock.now)
            await send([refusal], faults: held.faults)
            return
        }
        await send([update(.purchased, for: transaction)], faults: held.faults)
    }

    private func pendingID(orderToken: String, kind: PendingPurchase.Kind) throws(PurchaseKitError) -> String {
        guard let held = pending.first(where: { $0.paymentOrderToken == orderToken && $0.kind == kind }) else {
            throw notFound(kind)
        }
        return held.id
    }

    private func take(id: String, kind: PendingPurchase.Kind) throws(PurchaseKitError) -> PendingPurchase {
        guard let index = pending.firstIndex(where: { $0.id == id && $0.kind == kind }) else { throw notFound(kind) }
        return pending.remove(at: index)
    }

    private func notFound(_ kind: PendingPurchase.Kind) -> PurchaseKitError {
        PurchaseKitError(
            .orderNotFound,
            kind == .askToBuy ? "No Ask to Buy request matches." : "No interrupted purchase matches.",
            advice: "List the pending purchases first; the request may have been answered already.")
    }
}
