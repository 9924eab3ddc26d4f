import Foundation
import PurchaseKit

/// How the simulated store answers the next refund request.
public enum RefundRequestBehavior: Sendable, Hashable {
    /// The user submits it; the store accepts it `afterDays` (simulated days,
    /// scaled by the time rate) later and revokes the transaction.
    case approve(afterDays: Double)
    /// The user submits it; the store declines it `afterDays` later and nothing changes.
    case decline(afterDays: Double)
    /// The user closes the refund sheet.
    case userCancels
    /// The store fails the request.
    case fails
}

/// Where a refund request stands.
public enum RefundDecision: String, Sendable, Hashable, Codable {
    /// Submitted; the store has not decided.
    case pending
    /// Accepted: the transaction is revoked.
    case approved
    /// Declined: the transaction stands.
    case declined
}

/// A submitted refund request and its coming decision.
struct RefundRequestRecord: Sendable, Codable, Hashable {
    var transactionID: String
    var requestedAt: Date
    var decidesAt: Date
    var approves: Bool
    var decision: RefundDecision
}

extension SimulatedPaymentQueue {
    /// Sets how the next refund requests go (by default the store approves after two days).
    public func setRefundRequestBehavior(_ behavior: RefundRequestBehavior) {
        refundBehavior = behavior
    }

    /// The user asks for a refund of a transaction, as StoreKit's refund sheet
    /// does. The decision comes later on the clock: ``processRefundRequests()``
    /// (and ``processRenewals()``, which every subscription query runs)
    /// applies the decisions that are due; an approved one revokes the
    /// transaction and delivers `.revoked`.
    ///
    /// - Throws: ``PurchaseKitError/Code/orderNotFound`` (no such transaction),
    ///   ``PurchaseKitError/Code/refundRequestDuplicate`` (refunded already, or a
    ///   request is under review), ``PurchaseKitError/Code/refundRequestFailed``
    ///   (scripted with ``RefundRequestBehavior/fails``).
    public func requestRefund(transactionID: String) async throws -> RefundRequestStatus {
        try await waitLatency()
        guard let index = recordIndex[transactionID] else {
            throw PurchaseKitError(.orderNotFound, "The account has no transaction '\(transactionID)' to refund.",
                                   advice: "Ask for a refund of a transaction of this account.")
        }
        let pendingRequest = refundRequests.contains { $0.transactionID == transactionID && $0.decision == .pending }
        guard !records[index].transaction.isRevoked, !pendingRequest else {
            throw PurchaseKitError(.refundRequestDuplicate,
                                   "Transaction '\(transactionID)' was refunded already or has a refund request under review.",
                                   advice: "Wait for the store's decision; it arrives as a revocation when accepted.")
        }
        let now = clock.now
        switch refundBehavior {
        case .userCancels:
            return .userCancelled
        case .fails:
            throw PurchaseKitError(.refundRequestFailed, "The store could not take the refund request.",
                                   advice: "Let the user try again later.")
        case .approve(let days), .decline(let days):
            var approves = false
            if case .approve = refundBehavior { approves = true }
            refundRequests.append(RefundRequestRecord(transactionID: transactionID, requestedAt: now,
                                                      decidesAt: scaled(days, after: now), approves: approves,
                                                      decision: .pending))
            return .submitted
        }
    }

    /// Applies the refund decisions due by `clock.now`, oldest first: an
    /// approved request revokes its transaction (`.revoked` is delivered); a
    /// declined one changes nothing.
    public func processRefundRequests() async {
        let now = clock.now
        for index in refundRequests.indices where refundRequests[index].decision == .pending
            && refundRequests[index].decidesAt <= now {
            refundRequests[index].decision = refundRequests[index].approves ? .approved : .declined
            if refundRequests[index].approves {
                try? await refund(transactionID: refundRequests[index].transactionID, reason: .other)
            }
        }
    }

    /// Where the latest refund request of a transaction stands; nil when none was made.
    public func refundRequestDecision(transactionID: String) -> RefundDecision? {
        refundRequests.last { $0.transactionID == transactionID }?.decision
    }
}
