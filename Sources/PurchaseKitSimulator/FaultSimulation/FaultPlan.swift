import Foundation
import PurchaseKit

/// The fault rates of one run, drawn from its seed, and the decisions made
/// from them.
///
/// Decisions about outside calls are *keyed*: whether the n-th verification
/// of transaction T times out depends on the seed, T and n only, never on
/// which of two concurrent calls came first. That keeps a run replayable
/// while the engine works on several orders at once.
final class FaultPlan: Sendable {
    /// Chances, 0 to 1, of each fault.
    struct Rates: Sendable {
        var cancel = 0.0, storeFailure = 0.0, askToBuy = 0.0, interrupted = 0.0, latePayment = 0.0
        var lostToken = 0.0, duplicate = 0.0, held = 0.0
        var verifierTimeout = 0.0, serverError = 0.0, replyLost = 0.0, verifierThrows = 0.0, forged = 0.0
        var saveFails = 0.0, finishFails = 0.0, addFails = 0.0, productsFail = 0.0
        var crash = 0.0, clockJump = 0.0, userSwitch = 0.0
        /// A lookup of the order store by transaction id or token fails.
        var lookupFails = 0.0

        /// Rates drawn from the ranges a run may have.
        static func draw(using random: inout SeededRandomNumberGenerator) -> Rates {
            func r(_ high: Double) -> Double { Double.random(in: 0...high, using: &random) }
            var rates = Rates(cancel: r(0.15), storeFailure: r(0.15), askToBuy: r(0.2), interrupted: r(0.15),
                         lostToken: r(0.3), duplicate: r(0.3), held: r(0.2),
                         verifierTimeout: r(0.25), serverError: r(0.25), replyLost: r(0.2), verifierThrows: r(0.1),
                         forged: r(0.08), saveFails: r(0.08), finishFails: r(0.2), addFails: r(0.1),
                         productsFail: r(0.05), crash: r(0.15), clockJump: r(0.2), userSwitch: r(0.2))
            rates.latePayment = r(0.1)
            return rates
        }

        /// The rate of a fault added after the others, drawn from the seed's
        /// hash rather than from the run's generator, so that every draw made
        /// before it was added, and with it every earlier run, stays the same.
        static func drawnApart(_ name: String, seed: UInt64, upTo high: Double) -> Double {
            var hash = StableHash()
            hash.combine(String(seed))
            hash.combine("rate:" + name)
            var generator = SeededRandomNumberGenerator(seed: hash.value)
            return Double.random(in: 0...high, using: &generator)
        }
    }

    /// A verifier fault.
    enum VerifierFault: String {
        case timeout = "verifier timeout", serverError = "server error", replyLost = "lost reply"
        case throwsError = "verifier transient error"
    }

    private struct State {
        var enabled = true
        var occurrences: [String: Int] = [:]
        var injected: [String: Int] = [:]
    }

    let seed: UInt64
    let rates: Rates
    private let state = Locked(State())
    /// The hash of the seed alone: every draw hashes the seed, then its own
    /// words, so each starts from here instead of hashing the seed again.
    private let seeded: StableHash

    init(seed: UInt64, rates: Rates) {
        self.seed = seed
        self.rates = rates
        var seeded = StableHash()
        seeded.combine(String(seed))
        self.seeded = seeded
    }

    /// `StableHash.of([String(seed)] + words)`.
    private func hash(_ words: String...) -> UInt64 {
        var hash = seeded
        for word in words { hash.combine(word) }
        return hash.value
    }

    /// Switches every fault off (the "faults stop" phase) or on.
    func setEnabled(_ enabled: Bool) {
        state.withLock { $0.enabled = enabled }
    }

    var isEnabled: Bool { state.withLock { $0.enabled } }

    /// Faults injected so far, by kind.
    var injected: [String: Int] { state.withLock { $0.injected } }

    /// Counts a fault chosen by the driver (crashes, cancels...).
    func record(_ kind: String) {
        state.withLock { $0.injected[kind, default: 0] += 1 }
    }

    /// A uniform number in 0..<1 for the next occurrence of `key`.
    private func draw(_ key: String) -> Double? {
        let occurrence = state.withLock { s -> Int? in
            guard s.enabled else { return nil }
            defer { s.occurrences[key, default: 0] += 1 }
            return s.occurrences[key, default: 0]
        }
        guard let occurrence else { return nil }
        var generator = SeededRandomNumberGenerator(seed: hash(key, String(occurrence)))
        return Double.random(in: 0..<1, using: &generator)
    }

    /// Whether the next occurrence of `key` fails, at `rate`; counted as `kind` when it does.
    func fails(_ key: String, rate: Double, kind: String) -> Bool {
        guard let draw = draw(key), draw < rate else { return false }
        record(kind)
        return true
    }

    /// The fault of the next verification of a transaction, if any.
    func verifierFault(transactionID: String) -> VerifierFault? {
        guard let draw = draw("verify:\(transactionID)") else { return nil }
        var edge = 0.0
        for (fault, rate) in [(VerifierFault.timeout, rates.verifierTimeout), (.serverError, rates.serverError),
                              (.replyLost, rates.replyLost), (.throwsError, rates.verifierThrows)] {
            edge += rate
            if draw < edge {
                record(fault.rawValue)
                return fault
            }
        }
        return nil
    }

    /// Whether the receipt of a transaction is forged (the verifier always
    /// rejects it): fixed per transaction, faults on or off.
    func isForged(transactionID: String) -> Bool {
        var generator = SeededRandomNumberGenerator(seed: hash("forged", transactionID))
        return Double.random(in: 0..<1, using: &generator) < rates.forged
    }
}
