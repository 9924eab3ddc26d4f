/// The one table of legal status moves. Every status change of every order,
/// whatever started it (a purchase, a store update, a retry, a restore, a
/// refund), goes through ``validate(from:to:orderID:)``.
///
/// | from | may move to |
/// |---|---|
/// | created | purchasing, deferred, purchased, needsAttention, failed, cancelled |
/// | purchasing | deferred, purchased, needsAttention, failed, cancelled |
/// | deferred | purchasing, purchased, needsAttention, failed, cancelled |
/// | purchased | delivered, rejected, needsAttention, revoked |
/// | needsAttention | purchased, delivered, rejected, revoked |
/// | delivered | completed, revoked |
/// | completed | revoked |
/// | failed, cancelled | purchased, needsAttention |
/// | rejected, revoked | (final) |
///
/// Refinements over the first sketch, and why:
/// - `created` may jump to `deferred` or `purchased`: a store is free to skip
///   the `purchasing` report.
/// - `failed` and `cancelled` may still become `purchased`: StoreKit reports an
///   interrupted purchase as failed and later delivers the payment. A paid
///   transaction must never be dropped, so the payment wins.
/// - Wherever `purchased` may be reached, so may `needsAttention`: the store
///   reported a payment that must not be delivered as it stands (a quantity no
///   App Store purchase can have). It is paid, so it is kept and owed; it is
///   not delivered until someone has looked at it.
/// - `purchased` and `needsAttention` may become `revoked`: a refund can arrive
///   before delivery succeeded; nothing is owed any more.
/// - `rejected` and `revoked` are final.
public enum OrderTransitionTable {
    private static let table: [OrderStatus: Set<OrderStatus>] = [
        .created: [.purchasing, .deferred, .purchased, .needsAttention, .failed, .cancelled],
        .purchasing: [.deferred, .purchased, .needsAttention, .failed, .cancelled],
        .deferred: [.purchasing, .purchased, .needsAttention, .failed, .cancelled],
        .purchased: [.delivered, .rejected, .needsAttention, .revoked],
        .needsAttention: [.purchased, .delivered, .rejected, .revoked],
        .delivered: [.completed, .revoked],
        .completed: [.revoked],
        .failed: [.purchased, .needsAttention],
        .cancelled: [.purchased, .needsAttention],
        .rejected: [],
        .revoked: [],
    ]

    /// The table as one bit mask of successors per status, indexed by the
    /// status's position in `allCases`: every save of every order asks
    /// ``allows(from:to:)``, and a lookup in the table hashed both statuses.
    private static let successorMasks: [UInt16] = OrderStatus.allCases.map { from in
        (table[from] ?? []).reduce(0) { $0 | $1.transitionBit }
    }

    /// The statuses an order may move to from `status`.
    public static func successors(of status: OrderStatus) -> Set<OrderStatus> {
        table[status] ?? []
    }

    /// Whether `from → to` is a legal move. Staying in place is not a move.
    public static func allows(from: OrderStatus, to: OrderStatus) -> Bool {
        successorMasks[from.ordinal] & to.transitionBit != 0
    }

    /// Every legal move, in a stable order (for diagrams and tests).
    public static var allMoves: [(from: OrderStatus, to: OrderStatus)] {
        OrderStatus.allCases.flatMap { from in
            successors(of: from).sorted().map { (from: from, to: $0) }
        }
    }

    /// Checks a move.
    ///
    /// - Throws: ``PurchaseKitError/Code/invalidTransition`` naming both statuses.
    public static func validate(from: OrderStatus, to: OrderStatus, orderID: String? = nil) throws(PurchaseKitError) {
        guard allows(from: from, to: to) else {
            throw PurchaseKitError.invalidTransition(from: from, to: to, orderID: orderID)
        }
    }
}

private extension OrderStatus {
    var transitionBit: UInt16 { 1 << ordinal }
}
