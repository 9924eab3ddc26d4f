import Foundation
import PurchaseKit

/// A fault of the simulated verification server.
public enum ServerFault: Sendable, Hashable {
    /// No reply: the server sleeps for its timeout on the clock, then `verify`
    /// throws ``PurchaseKitError/Code/timeout``. Nothing was applied.
    case timeout
    /// A transient server error (such as 503): `.retryLater`. Nothing was applied.
    case serverError(statusCode: Int)
    /// The server applied the request (a credit may be recorded), then the
    /// reply was lost: `verify` throws ``PurchaseKitError/Code/verificationUnavailable``.
    case replyLost
}

/// Chances of each fault per request, drawn from the server's seeded generator.
public struct ServerFaultRates: Sendable, Hashable {
    /// Chance of ``ServerFault/timeout``, 0 to 1.
    public var timeout: Double
    /// Chance of ``ServerFault/serverError(statusCode:)`` (503).
    public var serverError: Double
    /// Chance of ``ServerFault/replyLost``.
    public var replyLost: Double

    /// No fault.
    public static let none = ServerFaultRates()

    public init(timeout: Double = 0, serverError: Double = 0, replyLost: Double = 0) {
        self.timeout = timeout
        self.serverError = serverError
        self.replyLost = replyLost
    }
}

/// One delivery the server recorded: the user credited and what with.
public struct Credit: Sendable, Hashable, Codable {
    /// The transaction credited; the ledger's key.
    public var transactionID: String
    /// The transaction's original id.
    public var originalTransactionID: String
    /// The user credited: the order's `userID`.
    public var userID: String
    /// The order credited.
    public var orderID: String
    /// The product delivered.
    public var productID: String
    /// How many units.
    public var quantity: Int
    /// The environment of the receipt.
    public var environment: StoreEnvironment
    /// When the server recorded the credit.
    public var creditedAt: Date
}
