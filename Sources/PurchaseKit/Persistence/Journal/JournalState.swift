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
    var loadWaiters: [CheckedContinuation<Void, any Error>] = []
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

    /// Whether the journal has grown enough that a new snapshot pays for itself:
    /// past the threshold, and past half the snapshot, so that the snapshots
    /// written over time cost at most about twice the journal itself.
    func wantsSnapshot(threshold: Int) -> Bool {
        !snapshotInProgress && journalBytes >= max(threshold, snapshotBytes / 2)
    }
}

/// Why a call could not go ahead yet: the store must load (or reload) first.
struct JournalNotReady: Error {}
