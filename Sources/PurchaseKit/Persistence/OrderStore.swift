/// What ``OrderStore/loadOpenOrders()`` found: the orders it could read, and a
/// typed error for each document it could not (moved aside, not deleted).
public struct OrderLoadReport: Sendable {
    /// The open (not archived) orders that loaded.
    public var orders: [Order]
    /// One error per document that could not be read. Never fatal.
    public var problems: [PurchaseKitError]

    /// Creates a report of the orders loaded and the documents set aside.
    public init(orders: [Order], problems: [PurchaseKitError] = []) {
        self.orders = orders
        self.problems = problems
    }
}

/// Where orders live between launches.
///
/// Stores hold *open* orders (anything not archived) and an *archive* of
/// finished ones. Lookups by id, transaction id and token search both, so that
/// a late duplicate of an archived transaction is still recognised and a late
/// payment still finds its order. A store may shrink archived orders after a
/// while (``JournalOrderStore`` and ``FileOrderStore`` drop their receipt,
/// metadata and hint) but must keep answering every lookup for them:
/// entitlements and balances are computed from them.
public protocol OrderStore: Sendable {
    /// Inserts or replaces the order with the same id, durably: when this returns,
    /// the order survives a crash. An archived order with the same id is replaced
    /// and becomes open again.
    ///
    /// A store may return before the flush for the two saves whose loss the
    /// engine's launch makes good, provided it keeps changes in order (a later
    /// durable change makes them durable too): an order still
    /// ``OrderStatus/created`` — no payment has started, and the engine saves it
    /// `purchasing`, durably, before the store sees one — and an order
    /// ``OrderStatus/completed`` — its `delivered` version is durable, and a
    /// launch finishes a delivered order again (finishing twice does nothing)
    /// and archives it. ``JournalOrderStore`` does; the other built-in stores
    /// flush every save.
    func save(_ order: Order) async throws

    /// Every open order, plus a report of what could not be read.
    func loadOpenOrders() async throws -> OrderLoadReport

    /// The open orders of one user.
    func openOrders(forUser userID: String) async throws -> [Order]

    /// Every order of one user, open and archived (entitlements and balances
    /// are computed from these).
    func orders(forUser userID: String) async throws -> [Order]

    /// The order with this id, open or archived.
    func order(id: String) async throws -> Order?

    /// The order whose store transaction has this id, open or archived. When
    /// several orders hold it, the one saved last: moving an order to the
    /// archive, or shrinking it there, is no save and takes nothing back.
    /// (``FileOrderStore`` keeps no order of its saves across a relaunch: a
    /// reopened one answers the holder its load read last.)
    ///
    /// Answer nil only when no order holds it. When the store cannot tell (a
    /// read failed, or orders it could not read may hold it), throw: the
    /// engine then leaves the transaction unfinished with the payment queue,
    /// which reports it again, rather than credit it to a new order.
    func order(transactionID: String) async throws -> Order?

    /// Every order, open or archived, holding a transaction of the purchase
    /// `originalTransactionID`: its first transaction, its renewals, and the
    /// changes of subscription tier that share its original id. Oldest first.
    ///
    /// The engine reads it for every paid transaction, to see the
    /// subscription as it stood before a renewal or a change of tier: on a
    /// store account shared by several app users, the user who changed the
    /// tier holds the subscription now, and once that order is archived only
    /// this finds it. Include the order of the first transaction. The default
    /// answers that order alone (``order(transactionID:)``), as a store
    /// written before this lookup did: once a change's order is archived, a
    /// renewal without a token then sees only the first purchase, and is
    /// flagged when it renews another tier, or follows the first buyer when
    /// it renews the first tier again.
    ///
    /// Throw, as for ``order(transactionID:)``, when the store cannot tell.
    func orders(originalTransactionID: String) async throws -> [Order]

    /// The order whose payment carried this token (``Order/token``), open or
    /// archived, however old: a payment the store reports late, after its order
    /// failed, was cancelled or was archived, is matched by it.
    ///
    /// As for ``order(transactionID:)``: the order saved last when several
    /// carry it; nil means no order carries it; a store that cannot tell throws.
    func order(token: String) async throws -> Order?

    /// Moves an order to the archive; it leaves the open set. A store may return
    /// before the move is durable, on the terms of ``save(_:)``: a launch
    /// archives a finished order it finds open.
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound`` when there is no such open order.
    func archive(orderID: String) async throws

    /// Deletes an order, open or archived. Deleting a missing order is not an error.
    func remove(orderID: String) async throws

    /// Records a spend of consumable units, durably: when this returns, the
    /// spend survives a crash. When the user already has a spend with the same
    /// id, nothing is written and the stored one is returned, so a retry spends
    /// nothing; a retry made while the first call is still writing returns
    /// only once that spend is durable too. The engine checks the balance; the
    /// store only keeps the record.
    /// Spends are kept for good: balances are computed from them.
    ///
    /// The default (in an extension) throws ``PurchaseKitError/Code/spendsNotSupported``.
    func recordSpend(_ spend: ConsumableSpend) async throws -> ConsumableSpend

    /// Every spend of one user, oldest first. The default returns none.
    func spends(forUser userID: String) async throws -> [ConsumableSpend]

    /// Keeps how the store last saw a subscription's renewal, replacing an
    /// older record of the same user and original transaction. A cache of the
    /// store's answers, for customer info at an offline launch: a store may
    /// return before it is durable. The default keeps nothing.
    func saveRenewalState(_ record: RenewalStateRecord) async throws

    /// The renewal states kept for one user. The default returns none.
    func renewalStates(forUser userID: String) async throws -> [RenewalStateRecord]
}
