import Foundation

/// How the store last saw one subscription's renewal, kept by the order store
/// so that customer info knows it at the next launch, offline: whether it
/// renews, a grace period and its end, billing retry. One record per user and
/// subscription (its original transaction); a newer one replaces it.
public struct RenewalStateRecord: Sendable, Hashable, Codable {
    /// The user whose subscription it is.
    public var userID: String
    /// The transaction that began the subscription.
    public var originalTransactionID: String
    /// What the store said.
    public var state: SubscriptionRenewalState
    /// When it said it, on the engine's clock.
    public var asOf: Date

    /// Creates a record of what the store said.
    public init(userID: String, originalTransactionID: String, state: SubscriptionRenewalState, asOf: Date) {
        self.userID = userID
        self.originalTransactionID = originalTransactionID
        self.state = state
        self.asOf = asOf
    }
}

extension SubscriptionRenewalState: Codable {
    private enum CodingKeys: String, CodingKey { case kind, willRenew, until }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .kind) {
        case "active": self = .active(willRenew: try container.decode(Bool.self, forKey: .willRenew))
        case "inGracePeriod": self = .inGracePeriod(until: try container.decode(Date.self, forKey: .until))
        case "inBillingRetry": self = .inBillingRetry
        case "expired": self = .expired
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: container,
                                                   debugDescription: "expected active, inGracePeriod, inBillingRetry or expired")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .active(let willRenew):
            try container.encode("active", forKey: .kind)
            try container.encode(willRenew, forKey: .willRenew)
        case .inGracePeriod(let until):
            try container.encode("inGracePeriod", forKey: .kind)
            try container.encode(until, forKey: .until)
        case .inBillingRetry:
            try container.encode("inBillingRetry", forKey: .kind)
        case .expired:
            try container.encode("expired", forKey: .kind)
        }
    }
}
