#if !canImport(StoreKit)
import Foundation
import Synchronization

/// The App Store behind this module's transcription of StoreKit, scripted by
/// a test (not Apple's API; package access, for this package's tests only).
///
/// StoreKit's entry points are static (`Transaction.updates`,
/// `AppStore.sync()`...), so the store a test scripts is installed for the
/// whole process with ``install(_:)``. Without one, StoreKit here behaves as
/// an App Store that cannot be reached: requests throw, sequences are empty,
/// and `AppStore.canMakePayments` is false.
///
/// It models one App Store account on one device: products, transactions
/// (finished or not, refunded, upgraded, renewed), purchases that pay, go
/// pending, are cancelled, fail or keep their sheet open, subscription
/// statuses and purchase intents. Sending an update or an intent returns once
/// every listener has processed it.
package final class ScriptedAppStore: Sendable {
    /// The transaction sequences of `Transaction`.
    package enum TransactionSource: Sendable {
        case all, currentEntitlements, unfinished, updates
    }

    struct Record {
        var transaction: Transaction
        var failure: VerificationResult<Transaction>.VerificationError?
        var isFinished = false
        var finishCalls = 0

        var result: VerificationResult<Transaction> {
            failure.map { .unverified(transaction, $0) } ?? .verified(transaction)
        }
    }

    struct Renewal {
        var state: Product.SubscriptionInfo.RenewalState
        var willAutoRenew: Bool
        var gracePeriodExpirationDate: Date?
        var isRenewalInfoVerified: Bool
    }

    struct State {
        var now: Date
        var products: [String: Product] = [:]
        var canMakePayments = true
        var productRequestFailure: (any Error & Sendable)?
        var syncFailure: (any Error & Sendable)?
        var syncCalls = 0
        var nextTransactionID: UInt64 = 2_000_000_000
        var records: [Record] = []
        var scripts: [PurchaseScript] = []
        var purchaseCalls: [PurchaseCall] = []
        var purchaseCallWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var openSheets: [(call: Int, continuation: CheckedContinuation<PurchaseScript, Never>)] = []
        var pending: [PendingPurchase] = []
        var renewals: [UInt64: Renewal] = [:]
        var updateFeeds: [ScriptedChannel<VerificationResult<Transaction>>] = []
        var intentFeeds: [ScriptedChannel<PurchaseIntent>] = []
        var listenerWaiters: [(updates: Int, intents: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var answeredCalls: Set<Int> = []
        var answerWaiters: [(call: Int, continuation: CheckedContinuation<Void, Never>)] = []

        var liveListeners: (updates: Int, intents: Int) {
            (updateFeeds.filter { !$0.isClosed }.count, intentFeeds.filter { !$0.isClosed }.count)
        }

        mutating func takeReadyListenerWaiters() -> [CheckedContinuation<Void, Never>] {
            let live = liveListeners
            let ready = listenerWaiters.filter { $0.updates <= live.updates && $0.intents <= live.intents }
            listenerWaiters.removeAll { $0.updates <= live.updates && $0.intents <= live.intents }
            return ready.map(\.continuation)
        }
    }

    let state: Mutex<State>

    private static let installed = Mutex<ScriptedAppStore?>(nil)

    /// The store StoreKit talks to now, if a test installed one.
    package static var current: ScriptedAppStore? { installed.withLock { $0 } }

    /// Makes `store` the App Store of this process.
    package static func install(_ store: ScriptedAppStore) {
        installed.withLock { $0 = store }
    }

    /// Takes the installed store away: StoreKit can no longer reach an App Store.
    package static func uninstall() {
        let store = installed.withLock { current -> ScriptedAppStore? in
            defer { current = nil }
            return current
        }
        store?.closeFeeds()
    }

    /// A store whose clock stands at `now`.
    package init(now: Date) {
        state = Mutex(State(now: now))
    }

    // MARK: The account's facts

    /// Moves the store's clock (subscription expiry, entitlements, new transactions' dates).
    package func setNow(_ date: Date) {
        state.withLock { $0.now = date }
    }

    /// Switches payments on or off for this device (`AppStore.canMakePayments`).
    package func setCanMakePayments(_ allowed: Bool) {
        state.withLock { $0.canMakePayments = allowed }
    }

    /// Makes every product request throw `error`, or succeed again with nil.
    package func failProductRequests(with error: (any Error & Sendable)?) {
        state.withLock { $0.productRequestFailure = error }
    }

    /// Makes `AppStore.sync()` throw `error`, or succeed again with nil.
    package func failSync(with error: (any Error & Sendable)?) {
        state.withLock { $0.syncFailure = error }
    }

    /// How many times the app called `AppStore.sync()`.
    package var syncCalls: Int { state.withLock { $0.syncCalls } }

    /// Every transaction of the account, as it stands now, oldest first.
    package var transactions: [Transaction] { state.withLock { $0.records.map(\.transaction) } }

    /// The transaction with this id, as it stands now.
    package func transaction(id: UInt64) -> Transaction? {
        state.withLock { s in s.records.first { $0.transaction.id == id }?.transaction }
    }

    /// Whether the app finished this transaction.
    package func isFinished(_ id: UInt64) -> Bool {
        state.withLock { s in s.records.first { $0.transaction.id == id }?.isFinished ?? false }
    }

    /// How many times the app called `finish()` on this transaction.
    package func finishCalls(_ id: UInt64) -> Int {
        state.withLock { s in s.records.first { $0.transaction.id == id }?.finishCalls ?? 0 }
    }

    /// The signed form of a transaction, as `jwsRepresentation` gives it.
    package func jws(of id: UInt64) -> String? {
        transaction(id: id)?.scriptedJWS
    }

    // MARK: What the transcription calls

    var canMakePayments: Bool { state.withLock { $0.canMakePayments } }

    func products(for identifiers: [String]) async throws -> [Product] {
        try state.withLock { s in
            if let failure = s.productRequestFailure { throw failure }
            return Set(identifiers).sorted().compactMap { s.products[$0] }
        }
    }

    func sync() async throws {
        try state.withLock { s in
            s.syncCalls += 1
            if let failure = s.syncFailure { throw failure }
        }
    }

    func finish(transactionID: UInt64) async {
        state.withLock { s in
            guard let index = s.records.firstIndex(where: { $0.transaction.id == transactionID }) else { return }
            s.records[index].isFinished = true
            s.records[index].finishCalls += 1
        }
    }

    /// A new feed of one of `Transaction`'s sequences. `updates` starts with
    /// every unfinished transaction, as StoreKit's does, then stays open.
    func feed(_ source: TransactionSource) -> ScriptedChannel<VerificationResult<Transaction>> {
        var ready: [CheckedContinuation<Void, Never>] = []
        defer { for waiter in ready { waiter.resume() } }
        return state.withLock { s in
            switch source {
            case .all:
                return ScriptedChannel(s.records.map(\.result), finished: true)
            case .unfinished:
                return ScriptedChannel(s.records.filter { !$0.isFinished }.map(\.result), finished: true)
            case .currentEntitlements:
                return ScriptedChannel(Self.entitlements(s), finished: true)
            case .updates:
                let feed = ScriptedChannel(s.records.filter { !$0.isFinished }.map(\.result), finished: false)
                s.updateFeeds.append(feed)
                ready = s.takeReadyListenerWaiters()
                return feed
            }
        }
    }

    func intentFeed() -> ScriptedChannel<PurchaseIntent> {
        let (feed, ready) = state.withLock { s in
            let feed = ScriptedChannel<PurchaseIntent>(finished: false)
            s.intentFeeds.append(feed)
            return (feed, s.takeReadyListenerWaiters())
        }
        for waiter in ready { waiter.resume() }
        return feed
    }

    /// Returns once at least this many listeners iterate `Transaction.updates`
    /// and `PurchaseIntent.intents`: an app listens from a task of its own, so
    /// a test waits for it before sending anything.
    package func waitForListeners(updates: Int = 1, intents: Int = 0) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                let live = s.liveListeners
                if updates <= live.updates && intents <= live.intents { return true }
                s.listenerWaiters.append((updates, intents, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    // MARK: Sending

    /// Sends a transaction to every `Transaction.updates` listener and returns
    /// once each has processed it.
    func sendUpdate(_ result: VerificationResult<Transaction>) async {
        let sent = state.withLock { s -> [(ScriptedChannel<VerificationResult<Transaction>>, Int)] in
            s.updateFeeds.removeAll(where: \.isClosed)
            return s.updateFeeds.map { ($0, $0.send(result)) }
        }
        for (feed, index) in sent { await feed.waitUntilProcessed(index) }
    }

    /// Sends a purchase intent to every `PurchaseIntent.intents` listener and
    /// returns once each has processed it.
    func sendIntent(_ intent: PurchaseIntent) async {
        let sent = state.withLock { s -> [(ScriptedChannel<PurchaseIntent>, Int)] in
            s.intentFeeds.removeAll(where: \.isClosed)
            return s.intentFeeds.map { ($0, $0.send(intent)) }
        }
        for (feed, index) in sent { await feed.waitUntilProcessed(index) }
    }

    /// Returns once every listener of `Transaction.updates` so far has gone
    /// away (its task was cancelled, as when its app's store adapter ends).
    package func waitUntilUpdateListenersEnd() async {
        for feed in state.withLock({ $0.updateFeeds }) { await feed.waitUntilClosed() }
    }

    /// How many listeners iterate `Transaction.updates` now.
    package var updateListenerCount: Int {
        state.withLock { $0.liveListeners.updates }
    }

    private func closeFeeds() {
        let (updates, intents) = state.withLock { s in
            defer { s.updateFeeds = []; s.intentFeeds = [] }
            return (s.updateFeeds, s.intentFeeds)
        }
        for feed in updates { feed.close() }
        for feed in intents { feed.close() }
    }
}
#endif
