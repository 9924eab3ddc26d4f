@_spi(Testing) import PurchaseKit

/// The payments one app process has handed to the store whose outcome the
/// store has not yet sent, by user and product: the design's rule that two
/// purchase calls for the same product and user make one payment in flight,
/// checked where the store sees the payments.
///
/// A payment is in flight from the moment the process hands it to the store
/// until the store sends its outcome (paid, failed, cancelled, deferred…) or
/// lets go of it (`add` returns, also after a store timeout). A second
/// payment for the same user and product in that time is a violation.
///
/// It counts a payment as answered when the store *sends* its outcome, a
/// moment before the engine hears it: a second payment made in between
/// would pass unseen. Every other overlap (during the store's latency, say,
/// or while the process's call to the store is on its way) is reported.
/// Each process has its own: a payment of a process that died does not
/// hold up the next one, which cannot know of it.
final class PaymentFlights: Sendable {
    private struct Key: Hashable, Sendable {
        let userID: String
        let productID: String
    }

    private struct State {
        var lastID = 0
        /// The payments in flight, by a number of their own, and their keys.
        var open: [Int: Key] = [:]
        var violations: [String] = []
    }

    private let state = Locked(State())

    /// What went against the rule, one message each.
    var violations: [String] { state.withLock { $0.violations } }

    /// Carries `payment` to the store through `body`, which hands it over and
    /// is given what to call when the store sends its outcome (see
    /// `SimulatedPaymentQueue.add(_:onOutcome:)`); in flight until then, or
    /// until `body` returns or throws.
    func carry(_ payment: Payment, _ body: (@escaping @Sendable () -> Void) async throws -> Void) async throws {
        let flight = begin(payment)
        defer { end(flight) }
        try await body { [self] in end(flight) }
    }

    /// A payment reaches the store; a violation if another payment for its
    /// user and product is still in flight. Returns the flight's number.
    private func begin(_ payment: Payment) -> Int {
        let key = Key(userID: payment.userID, productID: payment.productID)
        return state.withLock { s in
            if s.open.values.contains(key) {
                s.violations.append("two payments in flight at once for \(payment.productID) and \(payment.userID)")
            }
            s.lastID += 1
            s.open[s.lastID] = key
            return s.lastID
        }
    }

    /// The store sends the payment's outcome, or lets go of it: it is no
    /// longer in flight. Ending a flight twice changes nothing.
    private func end(_ flight: Int) {
        state.withLock { _ = $0.open.removeValue(forKey: flight) }
    }
}
