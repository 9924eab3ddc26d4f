import Foundation

// What the reconciler's rules ask of an order: whether it proves ownership.

extension Order {
    /// Whether this is a restore claim of someone other than `userID` that the
    /// server refused and that is over (its transaction finished): it proves
    /// no ownership, so it does not stand in the way of `userID`'s restore.
    package func isRefusedRestoreClaim(against userID: String?) -> Bool {
        guard let userID, !userID.isEmpty else { return false }
        return isRefusedRestore && isFinished && self.userID != userID
    }

    /// Whether this is a restore the server refused: its purchase is someone
    /// else's, so it proves no ownership of it (rules 2 and 7).
    package var isRefusedRestore: Bool { source == .restore && status == .rejected }

    /// Whether the server refused the receipt of a payment this order's user
    /// asked for: a purchase of theirs, matched by its token or by time. The
    /// store charged the account all the same, and a subscription renews on
    /// it, so it names its user among a tier's payers (rule 4). A refused
    /// renewal, or an order the app assigned, names nobody: its user was
    /// followed or chosen, not proven, and the server's refusal may say just
    /// that (the transaction was credited to another user). Nor does a refused
    /// claim of whoever was logged in or restoring (from another device,
    /// started by the store, a restore).
    var isRefusedPayment: Bool {
        status == .rejected && source == .purchase && !userID.isEmpty
    }

    /// Whether the order failed only because the store never answered its
    /// payment: the payment may still complete.
    package var isExpiredPayment: Bool {
        status == .failed && lastErrorCode == .timeout && storeFailureReason == nil && transaction == nil
    }
}

extension Order {
    /// A claim on a purchase the server has not answered yet: an order still
    /// owed its delivery whose user is a guess, not proven by the payment's
    /// token. Its user was the one logged in or restoring (a purchase from
    /// another device or started by the store, a restore), or its payment
    /// came without the order's token and was matched by product and time
    /// (rule 3). An order whose payment carried its token, a renewal that
    /// followed a known user, and an order the app assigned name their user;
    /// so does a claim the server accepted.
    var isUnansweredClaim: Bool {
        guard status.owesDelivery else { return false }
        switch source {
        case .otherDevice, .storeInitiated, .restore: return true
        case .purchase: return token == nil || transaction?.orderToken != token
        case .renewal, .unknown: return false
        }
    }
}
