/// Where an order stands in its lifecycle. Moves between statuses are checked
/// by ``OrderTransitionTable``; see its documentation for the diagram.
public enum OrderStatus: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// The order exists (its id was generated and it was saved); no payment yet.
    case created
    /// The payment was handed to the store.
    case purchasing
    /// The store is waiting for someone: Ask to Buy, or a user action such as
    /// accepting new terms. Grants nothing.
    case deferred
    /// The user paid. The engine now owes a delivery: this is an obligation.
    case purchased
    /// The server recorded the delivery; the store transaction is not finished yet.
    case delivered
    /// Delivered and the store transaction finished. The happy end.
    case completed
    /// The store refused the payment. The transaction (if any) is finished.
    case failed
    /// The user cancelled. Nothing was charged.
    case cancelled
    /// The verifier definitely rejected the receipt. The transaction is finished.
    case rejected
    /// A paid order that could not be delivered within the retry budget, or a
    /// transaction that could not be matched to one order safely. Never a dead
    /// end: retry triggers pick it up again.
    case needsAttention
    /// The store took the purchase back (refund, revocation).
    case revoked

    /// Whether the user has paid and the engine still owes a delivery.
    public var owesDelivery: Bool { self == .purchased || self == .needsAttention }

    /// Whether an order in this status replaces the earlier subscriptions of
    /// its group: its transaction was delivered (and perhaps refunded since:
    /// a refunded upgrade does not bring back the plan it replaced).
    var isPaidForSupersession: Bool { self == .delivered || self == .completed || self == .revoked }

    /// Whether an order in this status may be moved to the archive: nothing is
    /// owed and nothing is waiting. Archived orders can still be found by id and
    /// by transaction id, and a refund can still revoke a completed one.
    public var isArchivable: Bool {
        switch self {
        case .completed, .failed, .cancelled, .rejected, .revoked: return true
        default: return false
        }
    }

    /// The status's position in `allCases` (the declaration order), without
    /// searching the array: statuses are compared and looked up on every save.
    var ordinal: Int {
        switch self {
        case .created: 0
        case .purchasing: 1
        case .deferred: 2
        case .purchased: 3
        case .delivered: 4
        case .completed: 5
        case .failed: 6
        case .cancelled: 7
        case .rejected: 8
        case .needsAttention: 9
        case .revoked: 10
        }
    }

    public static func < (lhs: OrderStatus, rhs: OrderStatus) -> Bool { lhs.ordinal < rhs.ordinal }
}
