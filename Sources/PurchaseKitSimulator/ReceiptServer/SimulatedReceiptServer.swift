import Foundation
import PurchaseKit

/// A verification server for the simulated store's receipts, with a ledger
/// that credits each transaction once, and the faults of a real server.
///
/// Answers:
/// - a valid receipt seen for the first time: the order's user is credited, `.delivered`;
/// - the same transaction again, for the same user: `.alreadyDelivered` (never a second credit);
///   for another user: `.invalid`, and the credit stays with the first user;
/// - a forged, garbled or mismatched receipt (another transaction or product): `.invalid`;
/// - a receipt the store has since refunded, when the server is given the store: `.invalid`;
/// - a sandbox receipt sent to a production server (Apple's status 21007): `.invalid`, since
///   nobody paid; a production receipt sent to a sandbox server (21008): `.retryLater`, since
///   a real payment must never be dropped by a misconfigured server. A server made with
///   `fallsBackToOtherEnvironment` checks the receipt in its environment instead, as Apple
///   recommends, and answers as usual.
public actor SimulatedReceiptServer: ReceiptVerifier {
    /// A default actor's executor, unless a fault simulation shares its run's.
    private nonisolated let actorExecutor: ActorExecutor
    /// The serial executor the server runs on: a default actor's, unless a
    /// fault simulation shares its run's.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { actorExecutor.executor }
    /// The environment the server verifies for.
    public let environment: StoreEnvironment
    private let signer: ReceiptSigner
    private let clock: any PurchaseClock
    private var random: SeededRandomNumberGenerator
    private let fallsBack: Bool
    private let store: SimulatedPaymentQueue?

    private var scripted: [ServerFault?] = []
    private var rates = ServerFaultRates.none
    private var latency: TimeInterval = 0
    private var timeout: TimeInterval = 30
    private var ledger: [Credit] = []
    private var creditIndex: [String: Int] = [:]
    private var requests: [String: Int] = [:]

    /// Creates a server.
    ///
    /// - Parameters:
    ///   - environment: Where the server runs; sandbox by default.
    ///   - signer: The store's signer (same key), to check receipts.
    ///   - clock: Latency and timeouts sleep on it.
    ///   - seed: The seed of random faults.
    ///   - fallsBackToOtherEnvironment: Retry a wrong-environment receipt in its own environment (the 21007 dance).
    ///   - store: When given, receipts of transactions the store has refunded are refused.
    public init(environment: StoreEnvironment = .sandbox, signer: ReceiptSigner = ReceiptSigner(),
                clock: any PurchaseClock, seed: UInt64 = 0, fallsBackToOtherEnvironment: Bool = false,
                store: SimulatedPaymentQueue? = nil) {
        self.init(environment: environment, signer: signer, clock: clock, seed: seed,
                  fallsBackToOtherEnvironment: fallsBackToOtherEnvironment, store: store, executor: nil)
    }

    /// A server that runs on `executor` (a fault simulation's run), or on its own when nil.
    init(environment: StoreEnvironment, signer: ReceiptSigner, clock: any PurchaseClock, seed: UInt64,
         fallsBackToOtherEnvironment: Bool, store: SimulatedPaymentQueue?, executor: UnownedSerialExecutor?) {
        self.actorExecutor = ActorExecutor(executor)
        self.environment = environment
        self.signer = signer
        self.clock = clock
        self.random = SeededRandomNumberGenerator(seed: seed)
        self.fallsBack = fallsBackToOtherEnvironment
        self.store = store
    }

    // MARK: Faults

    /// Scripts the next requests' faults, in order (nil: that request goes through).
    public func scriptNextReplies(_ faults: [ServerFault?]) {
        scripted.append(contentsOf: faults)
    }

    /// Makes the next `count` requests fail with `fault`.
    public func failNext(_ count: Int, with fault: ServerFault) {
        scripted.append(contentsOf: Array(repeating: fault, count: max(0, count)))
    }

    /// Drops the faults scripted for the next requests: the server is back.
    public func clearScriptedFaults() {
        scripted.removeAll()
    }

    /// Sets the chance of each fault for requests without a script.
    public func setFaultRates(_ rates: ServerFaultRates) {
        self.rates = rates
    }

    /// Sets the time every request takes, in seconds on the clock.
    public func setLatency(_ seconds: TimeInterval) {
        latency = max(0, seconds)
    }

    /// Sets how long a timed-out request hangs before throwing.
    public func setTimeout(_ seconds: TimeInterval) {
        timeout = max(0, seconds)
    }

    // MARK: Ledger

    /// The credits recorded for a transaction: at most one, by construction.
    public func credits(forTransactionID id: String) -> [Credit] {
        ledger.filter { $0.transactionID == id }
    }

    /// How many times a transaction was credited: 0 or 1.
    public func creditCount(transactionID id: String) -> Int {
        credits(forTransactionID: id).count
    }

    /// Every credit, in the order recorded.
    public var allCredits: [Credit] { ledger }

    /// The credits of one user.
    public func credits(forUser userID: String) -> [Credit] {
        ledger.filter { $0.userID == userID }
    }

    /// How many verification requests named this transaction (faulted ones included).
    public func requestCount(transactionID id: String) -> Int {
        requests[id, default: 0]
    }

    // MARK: ReceiptVerifier

    /// Verifies the receipt and records the credit; see the type's documentation for the answers.
    ///
    /// - Throws: ``PurchaseKitError/Code/timeout`` after the timeout on the clock, or
    ///   ``PurchaseKitError/Code/verificationUnavailable`` when the reply was lost
    ///   (the request was applied); `CancellationError` when cancelled while sleeping.
    public func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
        requests[request.idempotencyKey, default: 0] += 1
        let fault = nextFault()
        if latency > 0 { try await clock.sleep(for: latency) }
        switch fault {
        case .timeout:
            try await clock.sleep(for: timeout)
            throw PurchaseKitError(.timeout, "The verification server did not answer in time.",
                                   advice: "Nothing was recorded; try again later.",
                                   orderID: request.order.id)
        case .serverError(let status):
            return .retryLater(reason: "server error \(status)")
        case .replyLost, nil:
            break
        }
        let result = await apply(request)
        if fault == .replyLost {
            throw PurchaseKitError(.verificationUnavailable,
                                   "The connection dropped before the verification server's reply arrived.",
                                   advice: "The server may have applied the request; ask again with the same transaction.",
                                   orderID: request.order.id)
        }
        return result
    }

    private func nextFault() -> ServerFault? {
        // One draw per request whatever happens, so a seed replays the same run.
        let draw = Double.random(in: 0..<1, using: &random)
        if !scripted.isEmpty { return scripted.removeFirst() }
        if draw < rates.timeout { return .timeout }
        if draw < rates.timeout + rates.serverError { return .serverError(statusCode: 503) }
        if draw < rates.timeout + rates.serverError + rates.replyLost { return .replyLost }
        return nil
    }

    private func apply(_ request: VerificationRequest) async -> ReceiptVerdict {
        let payload: ReceiptSigner.Payload
        switch signer.open(request.transaction.receipt) {
        case .failure(let problem): return .invalid(reason: problem.reason)
        case .success(let opened): payload = opened
        }
        if payload.environment != environment && !fallsBack {
            if payload.environment == .production {
                return .retryLater(reason: "21008: a production receipt was sent to the \(environment.rawValue) server")
            }
            return .invalid(reason: "21007: a \(payload.environment.rawValue) receipt was sent to the \(environment.rawValue) server")
        }
        guard payload.transactionID == request.transaction.id else {
            return .invalid(reason: "the receipt belongs to another transaction")
        }
        guard payload.productID == request.order.productID else {
            return .invalid(reason: "the receipt is for another product")
        }
        if let store, await store.transaction(id: payload.transactionID)?.isRevoked == true {
            return .invalid(reason: "the transaction was refunded")
        }
        if let index = creditIndex[payload.transactionID] {
            return ledger[index].userID == request.order.userID
                ? .alreadyDelivered
                : .invalid(reason: "the transaction was already credited to another user")
        }
        creditIndex[payload.transactionID] = ledger.count
        ledger.append(Credit(
            transactionID: payload.transactionID, originalTransactionID: payload.originalTransactionID,
            userID: request.order.userID, orderID: request.order.id, productID: payload.productID,
            quantity: payload.quantity, environment: payload.environment, creditedAt: clock.now))
        return .delivered
    }
}
