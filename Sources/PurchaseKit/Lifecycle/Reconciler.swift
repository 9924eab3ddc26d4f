import Foundation

/// Decides which order a store transaction belongs to. Pure: it sees a
/// snapshot of the orders and answers, so every rule is testable without I/O.
///
/// The rules, in order:
/// 0. The update answers a payment (its token names an order still without a
///    transaction) with a transaction that is not that payment's — another
///    order holds it, or it carries another token: the account already owns
///    the product and nothing was charged. That order fails `alreadyOwned`;
///    the transaction stays with its own order, whichever update comes first.
/// 1. The transaction id is already on an order: a duplicate.
/// 2. The order token names an order that has no transaction yet: that order.
///    If that order already holds another transaction of the same purchase
///    (same original id), this one is a renewal of it. A token found on two
///    orders is never guessed. A restore order holds the token of the
///    transaction it restored; once the server rejected it, it names nobody.
/// 3. No token at all, on a first purchase or on a change of subscription
///    tier the store says was paid now (``TransactionReason/purchase``): the
///    open orders of the same product, waiting for a
///    payment, begun no later than the purchase (plus a tolerance) and within
///    the matching window. Exactly one: that order. Two or more: never guessed.
///    None, while an order of another user than the current or restoring
///    one waits for a payment of the product at any time (the order's times
///    are the phone's clock, which can be off the store's by any amount):
///    never guessed. Not for a purchase the store started, which never
///    carried a token.
/// 4. Otherwise a renewal of a known purchase (same original id), for the
///    user of the tier the subscription stood on just before it: the latest
///    run of the purchase's transactions here of one product (after a change
///    of tier, the change's order and its renewals), and in it the first
///    order the server did not reject that names a user (an order still
///    waiting for assign names none, and hides none that does); flagged for
///    the app to assign while that tier has no user yet, or while two users
///    name it (a change between them is not here), counting the users of
///    purchases in it whose receipts the server refused, or while another
///    user's order of the product waits for a payment and the transaction
///    carries no token (the change that order asked for, at the renewal
///    date, may be it). A transaction of
///    another product than that tier begins a tier, by a change no order
///    here was matched to: flagged, whoever held the tier before. Flagged
///    too: a renewal carrying a token that neither an order here nor a
///    transaction of the purchase here holds (the order of a change of tier,
///    lost with a device). A renewal of a purchase whose every order here
///    the server rejected, or whose every order here holds a later
///    transaction, is flagged too, also in a restore: nobody here is known
///    to pay for it. So is a renewal of a purchase known here only as a claim
///    the server has not answered (a purchase from another device or
///    started by the store, a restore, or a payment that lost its token and
///    was matched by time, still owed its delivery): its user is a guess
///    until the server accepts it. The engine then matches such a flagged
///    renewal again.
/// 5. A token no order holds (the app lost the order: a reinstall), or a
///    renewal of an unknown purchase: flagged for the app to assign, never
///    guessed — unless it is restored, when rule 6 applies.
/// 6. No token at all: an unsolicited purchase for the current user (from
///    another device, or started by the store: a `storeInitiated` order); a
///    restored transaction for the restoring user — but a restored renewal
///    of an unknown purchase is never guessed while another user's order of
///    its product waits for a payment, as in rule 3.
///
/// 7. For a restore, a restore order of another user that the server
///    refused, and whose transaction is finished, holds nothing: on a shared
///    store account the first user to restore is often not the buyer. The
///    restoring user's claim is made in its place (it has the same id; the
///    refused one credited nobody), and the server decides again.
///
/// Rules 3 to 6 decide from the orders that are *not* there. When some could
/// not be read, the one the transaction belongs to may be among them: the
/// transaction then waits, unfinished, until they can be read.
public struct Reconciler: Sendable {
    /// The answer.
    public enum Match: Sendable, Equatable {
        /// The transaction is already on this order.
        case duplicate(orderID: String)
        /// The store answered this order's payment with a transaction of
        /// another payment: the account already owns the product, nothing was
        /// charged for this order, and the transaction is not its to deliver.
        case alreadyOwned(orderID: String)
        /// The transaction pays for this order.
        case order(orderID: String)
        /// A new order for `userID` should be created from the transaction.
        case newOrder(userID: String, source: OrderSource)
        /// The transaction cannot be attributed safely. A new order is made and
        /// flagged `needsAttention`; `userID` is set only when every candidate
        /// belongs to the same user, otherwise the order waits for the app to assign it.
        case ambiguous(candidateOrderIDs: [String], userID: String?)
        /// No order known holds the transaction or its token, but some orders
        /// could not be read: it may be theirs. It is left with the store,
        /// unfinished, which reports it again (at launch, at a retry trigger).
        case undetermined
    }

    /// How far before an order's payment began a transaction may be dated and still match
    /// (store and device clocks differ).
    public var clockTolerance: TimeInterval
    /// How long after its payment began an order may still be matched by time.
    public var matchingWindow: TimeInterval

    /// Creates a reconciler with its tolerances for matching a payment whose token was lost.
    public init(clockTolerance: TimeInterval = 300, matchingWindow: TimeInterval = 7 * 24 * 3600) {
        self.clockTolerance = clockTolerance
        self.matchingWindow = matchingWindow
    }

    /// Matches `transaction` against `orders` (open orders, plus any archived
    /// order found by the transaction id or the token).
    ///
    /// - Parameters:
    ///   - transaction: The paid transaction the store reported.
    ///   - orders: The orders it may belong to, open and archived, in a stable
    ///     order (the same input always matches the same way).
    ///   - kind: What the store reported; a `.restored` transaction nobody
    ///     claims becomes a `restore` order of `currentUserID`.
    ///   - paymentToken: The token of the payment the update answers, when the
    ///     update carries one: it can differ from the transaction's own token
    ///     when the store answers a new payment with a transaction the account
    ///     already owns.
    ///   - currentUserID: Who gets a transaction nothing else claims (the
    ///     logged-in user, or the user restoring); nil or empty: nobody.
    ///   - storeInitiated: The store started the purchase (a promoted in-app
    ///     purchase), so it is no order's payment with a lost token.
    ///   - ordersMayBeMissing: The order store could not answer every lookup
    ///     for the transaction (an order it could not read may hold it).
    public func match(_ transaction: StoreTransaction, kind: TransactionUpdate.Kind = .purchased,
                      answering paymentToken: String? = nil, orders: [Order], currentUserID: String?,
                      storeInitiated: Bool = false, ordersMayBeMissing: Bool = false) -> Match {
        // A restore claim the server refused another user proves no
        // ownership: for this user's restore it holds nothing (rule 7).
        let orders = kind == .restored ? orders.filter { !$0.isRefusedRestoreClaim(against: currentUserID) } : orders
        if let payer = payerAnsweredWithAnotherTransaction(transaction, paymentToken: paymentToken, orders: orders) {
            return .alreadyOwned(orderID: payer.id)
        }
        if let known = orders.first(where: { $0.transactionID == transaction.id }) {
            return .duplicate(orderID: known.id)
        }
        let named = transaction.orderToken.map { token in orders.filter { $0.token == token } } ?? []
        if named.count > 1 {
            // One token on two orders (minted twice, e.g. by two launches): never guessed.
            let users = Set(named.map(\.userID))
            return .ambiguous(candidateOrderIDs: named.map(\.id).sorted(), userID: users.count == 1 ? users.first : nil)
        }
        if let tokenOrder = named.first {
            if tokenOrder.transaction == nil, tokenOrder.productID == transaction.productID {
                return .order(orderID: tokenOrder.id)
            }
            // The token's order is paid already: a renewal keeps the token of its
            // first purchase. Credit its user, never anyone else.
            // A restore order only borrowed the token of a purchase made
            // elsewhere: once the server refused it (another user holds the
            // purchase), it proves no ownership, as in rule 4.
            if tokenOrder.isRefusedRestore {
                return .ambiguous(candidateOrderIDs: [], userID: nil)
            }
            let source: OrderSource = tokenOrder.transaction?.originalID == transaction.originalID ? .renewal : .unknown
            return .newOrder(userID: tokenOrder.userID, source: source)
        }
        // The rules below credit a time match, a known subscription's user,
        // nobody or whoever is logged in: none of that is safe while the
        // order that fits may be one that could not be read.
        if ordersMayBeMissing { return .undetermined }
        // Time matching is for a lost token only: a token we do not know belongs
        // to no waiting order here (each has its own), so it is never guessed onto one.
        // A change of tier paid now shares its subscription's original id,
        // yet it is a payment like a first purchase: when the store says so,
        // its lost token is matched by time too, to the order that asked for
        // the change, and not followed to the subscription's earlier user.
        // A store that does not say leaves it to rule 4, as a renewal.
        let isPurchase = transaction.originalID == transaction.id || transaction.reason == .purchase
        if isPurchase, transaction.orderToken == nil, !storeInitiated {
            let candidates = orders.filter { isCandidate($0, for: transaction) }
            if candidates.count == 1, let only = candidates.first {
                return .order(orderID: only.id)
            }
            if candidates.count > 1 {
                let users = Set(candidates.map(\.userID))
                return .ambiguous(candidateOrderIDs: candidates.map(\.id).sorted(), userID: users.count == 1 ? users.first : nil)
            }
            // None fits in time, but another user's order of the product waits
            // for a payment: its times are the phone's clock, which the user can
            // set off the store's by an hour or a year. Then the payment may well
            // be that order's: never the logged-in or restoring user's by default.
            if let waiting = othersWaiting(for: transaction, orders: orders, currentUserID: currentUserID) {
                return .ambiguous(candidateOrderIDs: waiting, userID: nil)
            }
        }
        // A renewal follows the subscription's earlier order, unless the server
        // rejected that one (it belongs to someone else, as a restore on a
        // shared account can find out): a rejected claim proves no ownership.
        // Earlier in time too: an order paid after this transaction (a later
        // change of tier, by whoever made it) says nothing of who held the
        // subscription when the store charged this one.
        let earlierChain = orders.filter {
            guard let held = $0.transaction else { return false }
            return held.originalID == transaction.originalID && held.purchaseDate <= transaction.purchaseDate
        }
        let earlierOrders = earlierChain.filter { $0.status != .rejected }
        // A token no order here holds, nor any transaction of the purchase
        // here: the payment of an order this app does not have (lost with a
        // device) changed the subscription, a change of tier most likely, by
        // whichever user made it. Never followed (rule 5).
        if let token = transaction.orderToken, !earlierOrders.isEmpty,
           !earlierOrders.contains(where: { $0.transaction?.orderToken == token }) {
            return .ambiguous(candidateOrderIDs: [], userID: nil)
        }
        // The subscription as it stood just before this transaction: the
        // latest run of the purchase's transactions here of one product (its
        // tier), rejected ones included, oldest first. After a change of tier
        // by another user of a shared store account, the change's order and
        // its renewals; before any, the first purchase and its renewals.
        let tier = Self.latestTier(of: earlierChain)
        let holders = tier.filter { $0.status != .rejected }
        let continuesTier = tier.first?.transaction?.productID == transaction.productID
        // An earlier order still waiting for assign names no user to follow,
        // but it does not hide one that does: a renewal flagged while the
        // purchase's user was unknown must not flag every later renewal once
        // it is known. (A `renewal` order of nobody would rest `purchased`,
        // owed a delivery that no retry makes and that nothing flags: with no
        // user to follow, the renewal waits for the app like its first purchase.)
        let namers = holders.filter { !$0.isUnansweredClaim && !$0.userID.isEmpty }
        // Two users on one run of a tier: a change between them is not here
        // (its update has not arrived yet, or it renewed the same product).
        // Which of them holds the tier now is not known here. A purchase whose
        // receipt the server refused counts: the store charged the account
        // for it all the same, and the subscription renews on it.
        let payers = namers + tier.filter(\.isRefusedPayment)
        if Set(payers.map(\.userID)).count > 1 {
            return .ambiguous(candidateOrderIDs: [], userID: nil)
        }
        if let holder = namers.first {
            // A transaction of another product than the tier held begins a
            // tier: a change of tier whose token did not name its order and
            // that no order matched by time. It is the payment of whoever
            // asked for it: on a shared store account another user than the
            // tier's holder, whose order may have expired or been lost with
            // a device since. Never followed; the app assigns it.
            guard continuesTier else {
                let waiting = orders.filter { waitsForPayment($0, of: transaction) }
                return .ambiguous(candidateOrderIDs: waiting.map(\.id).sorted(), userID: nil)
            }
            // Without a token, while another user's order of the product waits
            // for a payment (an Ask to Buy, say): the transaction may be that
            // order's change at the renewal date, its token lost, after a
            // change between them that is not here yet. Never followed.
            if transaction.orderToken == nil,
               let waiting = othersWaiting(for: transaction, orders: orders, currentUserID: holder.userID) {
                return .ambiguous(candidateOrderIDs: waiting, userID: nil)
            }
            return .newOrder(userID: holder.userID, source: .renewal)
        }
        // The purchase is known here only as orders waiting for assign, or as
        // a claim the server has not answered yet: a purchase from another
        // device or started by the store, credited to whoever was logged in, a
        // restore, or a payment without its token matched to an order by
        // time. Its user is a guess until the server accepts it, and the
        // server cannot refuse a renewal it has never seen: followed, the
        // renewal of another user's subscription was credited to the guessed
        // user. Flagged instead; once the claim is accepted, the engine
        // matches the flagged renewal again (see `PurchaseEngine`'s follow-up).
        if !earlierOrders.isEmpty {
            return .ambiguous(candidateOrderIDs: [], userID: nil)
        }
        // A renewal of a purchase whose every order here the server rejected,
        // or whose orders here all hold later transactions (a renewal that
        // reached this device after newer ones; a later order says nothing
        // of who held the tier then): who pays for it is not known here, and
        // a restore is no better a claim than the refused one. The server
        // credits each transaction once, but a renewal is a transaction it
        // has not seen: it could not refuse the wrong user.
        if transaction.originalID != transaction.id,
           orders.contains(where: { $0.transaction?.originalID == transaction.originalID }) {
            return .ambiguous(candidateOrderIDs: [], userID: nil)
        }
        // A token this app minted for an order it no longer has (a reinstall,
        // a lost order store), or a renewal of a subscription whose first
        // purchase is unknown here: someone paid through this app, but who is
        // not known here. Never credit whoever happens to be logged in. A
        // restore is the user's own claim on the account's purchases: the
        // restoring user gets it, and the app's server, which credits each
        // transaction once, refuses one already credited to someone else.
        if kind != .restored, transaction.orderToken != nil || transaction.originalID != transaction.id {
            return .ambiguous(candidateOrderIDs: [], userID: nil)
        }
        // A restored renewal without a token, of a purchase unknown here, while
        // another user's order of the product waits for a payment (or waited
        // until it expired): the subscription may be that order's, its token
        // lost and its first transaction not yet heard of. The restoring user's
        // claim is no better than that user's, and the server cannot refuse
        // the wrong one when the buyer's claim has not reached it yet.
        if kind == .restored, transaction.orderToken == nil, transaction.originalID != transaction.id,
           let waiting = othersWaiting(for: transaction, orders: orders, currentUserID: currentUserID) {
            return .ambiguous(candidateOrderIDs: waiting, userID: nil)
        }
        // An empty id names nobody: an order of nobody that is not flagged
        // would rest owed a delivery no retry makes, unseen by the app.
        if let currentUserID, !currentUserID.isEmpty {
            let source: OrderSource = kind == .restored ? .restore : storeInitiated ? .storeInitiated : .otherDevice
            return .newOrder(userID: currentUserID, source: source)
        }
        return .ambiguous(candidateOrderIDs: [], userID: nil)
    }

    /// The order whose payment the update answers, when the transaction is
    /// not that payment's own. A transaction without a token that nobody holds
    /// could be the payment's own charge with the token lost, so it is left to
    /// the other rules.
    private func payerAnsweredWithAnotherTransaction(_ transaction: StoreTransaction, paymentToken: String?,
                                                     orders: [Order]) -> Order? {
        guard let paymentToken, paymentToken != transaction.orderToken else { return nil }
        let payers = orders.filter { $0.token == paymentToken }
        guard payers.count == 1, let payer = payers.first,
              payer.transaction == nil, payer.productID == transaction.productID else { return nil }
        let heldElsewhere = orders.contains { $0.transactionID == transaction.id && $0.id != payer.id }
        return heldElsewhere || transaction.orderToken != nil ? payer : nil
    }

    private func isCandidate(_ order: Order, for transaction: StoreTransaction) -> Bool {
        guard waitsForPayment(order, of: transaction) else { return false }
        let began = order.paymentBeganAt ?? order.createdAt
        return began <= transaction.purchaseDate.addingTimeInterval(clockTolerance)
            && transaction.purchaseDate <= began.addingTimeInterval(matchingWindow)
    }

    /// The ids of the orders that wait for a payment of the transaction's
    /// product, when one of them is another user's than `currentUserID`
    /// (who would otherwise get the transaction); nil otherwise.
    private func othersWaiting(for transaction: StoreTransaction, orders: [Order], currentUserID: String?) -> [String]? {
        guard let currentUserID, !currentUserID.isEmpty else { return nil }
        let waiting = orders.filter { waitsForPayment($0, of: transaction) }
        guard waiting.contains(where: { $0.userID != currentUserID }) else { return nil }
        return waiting.map(\.id).sorted()
    }

    /// Whether `order` still waits for a payment of the transaction's product, whenever it began.
    private func waitsForPayment(_ order: Order, of transaction: StoreTransaction) -> Bool {
        guard order.transaction == nil, order.productID == transaction.productID else { return false }
        switch order.status {
        case .created, .purchasing, .deferred: return true
        case .failed: return order.isExpiredPayment
        default: return false
        }
    }
}
