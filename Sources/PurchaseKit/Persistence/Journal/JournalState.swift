import Foundation

/// What a ``JournalOrderStore`` holds in memory, under its lock.
struct JournalState: Sendable {
    enum Phase: Sendable {
        /// Nothing read yet, or the last load failed: the next call loads.
        case unloaded
        /// A call is loading; others wait for it.
        case loading
        case loaded
    }

    var phase = Phase.unloaded
    var loadWaiters: [Suspension<Void, any Error>] = []
    var index = JournalIndex()
    /// Problems found by loads, until ``JournalOrderStore/loadOpenOrders()`` reports them.
    var unreportedProblems: [PurchaseKitError] = []
    /// The generation of the journal file records go to now.
    var generation: UInt64 = 1
    /// Bytes queued for the journal files since the last snapshot began.
    var journalBytes = 0
    /// The size of the last snapshot written or read.
    var snapshotBytes = 0
    var snapshotInProgress = false
    var isClosed = false
    /// The order the last durable record was about (nil: none, or not an
    /// order's), and whether that order has ended since (saved `completed`,
    /// archived or removed). A durable save may flush on its caller's thread
    /// only when it is about that same order or that order has ended: saves
    /// coming one order at a time, as when purchases do, with nothing else
    /// in flight that the blocked thread would hold up.
    var lastDurableOrder: String?
    var lastDurableOrderEnded = true

    /// Whether a durable record about `orderID`, saved now, may be flushed
    /// by its caller (see ``lastDurableOrder``).
    func flushesOnCallersThread(about orderID: String?) -> Bool {
        orderID != nil && (orderID == lastDurableOrder || lastDurableOrderEnded)
    }

    /// Notes a record about `orderID`, for ``flushesOnCallersThread(about:)``.
    mutating func noteRecord(about orderID: String?, durable: Bool, endsOrder: Bool) {
        guard durable else {
            if endsOrder, let orderID, orderID == lastDurableOrder { lastDurableOrderEnded = true }
            return
        }
        lastDurableOrder = orderID
        lastDurableOrderEnded = endsOrder
    }

    /// Whether the journal has grown enough that a new snapshot pays for itself:
    /// past the threshold, and past the last snapshot's size, so that the
    /// snapshots written over time cost at most about as much as the journal
    /// itself (half the size cost twice as much: the archive, rewritten into
    /// every snapshot, made snapshots the larger part of what a purchase
    /// wrote), and a launch reads at most twice the snapshot.
    func wantsSnapshot(threshold: Int) -> Bool {
        !snapshotInProgress && journalBytes >= max(threshold, snapshotBytes)
    }
}

/// Why a call could not go ahead yet: the store must load (or reload) first.
struct JournalNotReady: Error {}
