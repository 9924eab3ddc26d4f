import Foundation

extension OrderStatus {
    /// Whether no transition leaves this status (``OrderTransitionTable``).
    public var isFinal: Bool { OrderTransitionTable.successors(of: self).isEmpty }
}

extension Order {
    /// Moves the order to `status` through the transition table and stamps
    /// `updatedAt`. Only the library moves orders: outside it, an order's
    /// lifecycle fields are read-only.
    ///
    /// - Throws: ``PurchaseKitError/Code/invalidTransition``; the order is unchanged.
    package mutating func move(to status: OrderStatus, at date: Date) throws(PurchaseKitError) {
        try OrderTransitionTable.validate(from: self.status, to: status, orderID: id)
        self.status = status
        self.updatedAt = date
    }
}

extension Order {
    /// A copy with lifecycle fields set directly, around the transition table:
    /// for fixtures only (stored orders a test or a benchmark makes up). A test
    /// hook: `@_spi(Testing) import PurchaseKit`. A nil argument keeps the field.
    @_spi(Testing) public func fixture(
        status: OrderStatus? = nil, paymentBeganAt: Date? = nil, paymentFinishedAt: Date? = nil,
        updatedAt: Date? = nil, transaction: StoreTransaction? = nil
    ) -> Order {
        var copy = self
        if let status { copy.status = status }
        if let paymentBeganAt { copy.paymentBeganAt = paymentBeganAt }
        if let paymentFinishedAt { copy.paymentFinishedAt = paymentFinishedAt }
        if let updatedAt { copy.updatedAt = updatedAt }
        if let transaction { copy.transaction = transaction }
        return copy
    }
}
