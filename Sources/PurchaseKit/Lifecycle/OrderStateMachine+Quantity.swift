import Foundation

extension OrderStateMachine {
    /// Why `transaction`'s quantity is one no App Store purchase of this product
    /// can have, or nil when it is possible. With an unknown `productType` only
    /// the bound every type shares (1 to 10) is checked.
    ///
    /// A transaction failing this check is never delivered: a store (or
    /// something posing as one) that reports zero, a negative count or
    /// `Int.max` units must not credit the user with them.
    public static func quantityProblem(of transaction: StoreTransaction, productType: ProductType?) -> String? {
        let allowed = ProductType.allowedQuantities(for: productType)
        guard !allowed.contains(transaction.quantity) else { return nil }
        let product = productType.map { "a \($0.rawValue) product" } ?? "any product"
        return "The store reported a quantity of \(transaction.quantity), which no purchase of \(product) can have "
            + "(\(allowed.lowerBound) to \(allowed.upperBound)); it is not delivered. "
            + "Check the transaction with the store before crediting anything."
    }

    /// Holds a paid order whose transaction has an impossible quantity: it
    /// needs attention, carries the reason and ``PurchaseKitError/Code/invalidQuantity``,
    /// and is saved, but never verified, delivered or finished. An order held
    /// already for the same reason is left alone.
    func held(_ order: Order, problem: String, now: Date) -> Step {
        var next = order
        if next.status == .needsAttention {
            guard next.lastErrorCode != .invalidQuantity || next.hint != problem else { return Step(order: order, actions: []) }
            next.updatedAt = now
        } else if !Self.move(&next, to: .needsAttention, at: now) {
            return Step(order: order, actions: [])
        }
        next.hint = problem
        next.lastErrorCode = .invalidQuantity
        next.nextAttemptAt = nil
        return Step(order: next, actions: [.persist])
    }
}
