#if !canImport(StoreKit)
import Foundation

// Transcribed from Apple's published StoreKit interface: `Transaction`
// (the properties the adapter reads), `Transaction.Reason`,
// `Transaction.RevocationReason`, `Transaction.finish()`. The interface does
// not publish the raw values of `Transaction.Reason`'s constants; the ones
// here are this transcription's (the adapter compares the constants only).
/// Represents signed transaction information for a purchase.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public struct Transaction : Identifiable {

    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    public struct Reason : RawRepresentable, Equatable, Hashable, Sendable {

        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }

        /// The transaction is a purchase
        public static let purchase = Transaction.Reason(rawValue: "PURCHASE")

        /// The transaction is a subscription renewal
        public static let renewal = Transaction.Reason(rawValue: "RENEWAL")

        @available(iOS 17.0, tvOS 17.0, watchOS 10.0, macOS 14.0, *)
        public typealias RawValue = String
    }

    public struct RevocationReason : RawRepresentable, Equatable, Hashable {

        public let rawValue: Int

        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The user refunded the transaction due to an issue in your app.
        public static let developerIssue = Transaction.RevocationReason(rawValue: 1)

        /// The transaction was revoked for some other reason.
        public static let other = Transaction.RevocationReason(rawValue: 0)

        @available(iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, macOS 12.0, *)
        public typealias RawValue = Int
    }

    /// Unique ID for the transaction.
    public let id: UInt64

    /// The ID of the original transaction for `productID` or`subscriptionGroupID` if this is a
    /// subscription.
    public let originalID: UInt64

    /// Identifies the product the transaction is for.
    public let productID: String

    /// Identifies the subscription group the transaction is for.
    /// - Note: Only for subscriptions.
    public let subscriptionGroupID: String?

    /// The date this transaction occurred on.
    public let purchaseDate: Date

    /// The date the users access to `productID` expires
    /// - Note: Only for subscriptions.
    public let expirationDate: Date?

    /// Quantity of `productID` purchased in the transaction.
    /// - Note: Always 1 for non-consumables and auto-renewable suscriptions.
    public let purchasedQuantity: Int

    /// If this transaction was upgraded to a subscription with a higher level of service.
    /// - Note: Only for subscriptions.
    public let isUpgraded: Bool

    /// The date the transaction was revoked, or `nil` if it was not revoked.
    public let revocationDate: Date?

    /// The reason the transaction was revoked, or `nil` if it was not revoked.
    public let revocationReason: Transaction.RevocationReason?

    /// The type of `productID`.
    public let productType: Product.ProductType

    /// If an app account token was added as a purchase option when purchasing, this property will
    /// be the token provided. If no token was provided, this will be `nil`.
    public let appAccountToken: UUID?

    /// The server environment the transaction was created in.
    @available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
    public let environment: AppStore.Environment

    /// The server environment the transaction was created in.
    ///
    /// The possible values this can return are "Production" for apps downloaded from the App Store,
    /// "Sandbox" for the App Store Sandbox and apps downloaded from TestFlight, and "Xcode" for
    /// StoreKit Testing in Xcode.
    @backDeployed(before: iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, macCatalyst 16.0)
    @available(iOS, introduced: 15.0, deprecated: 16.0, message: "Use the environment property instead")
    @available(macOS, introduced: 12.0, deprecated: 13.0, message: "Use the environment property instead")
    @available(tvOS, introduced: 15.0, deprecated: 16.0, message: "Use the environment property instead")
    @available(watchOS, introduced: 8.0, deprecated: 9.0, message: "Use the environment property instead")
    @available(macCatalyst, introduced: 15.0, deprecated: 16.0, message: "Use the environment property instead")
    @available(visionOS, unavailable)
    public var environmentStringRepresentation: String { environment.rawValue }

    /// The reason for the transaction.
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    public let reason: Transaction.Reason

    /// The reason for the transaction.
    ///
    /// The possible values this can return are "PURCHASE" when a transaction is the result of a change of service,
    /// or "RENEWAL" when a transaction is the result of a subscription renewing.
    @backDeployed(before: iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, macCatalyst 17.0)
    @available(iOS, introduced: 15.0, deprecated: 17.0, message: "Use the reason property instead")
    @available(macOS, introduced: 12.0, deprecated: 14.0, message: "Use the reason property instead")
    @available(tvOS, introduced: 15.0, deprecated: 17.0, message: "Use the reason property instead")
    @available(watchOS, introduced: 8.0, deprecated: 10.0, message: "Use the reason property instead")
    @available(macCatalyst, introduced: 15.0, deprecated: 17.0, message: "Use the reason property instead")
    @available(visionOS, unavailable)
    public var reasonStringRepresentation: String { reason.rawValue }

    /// The signed form behind `jwsRepresentation` (not Apple's API).
    package let scriptedJWS: String

    /// Call this method after giving the user access to `productID`.
    public func finish() async {
        await ScriptedAppStore.current?.finish(transactionID: id)
    }

    @available(iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, macOS 12.0, *)
    public typealias ID = UInt64
}

// Transcribed from Apple's published StoreKit interface: `Transaction : Equatable`,
// `Transaction : Hashable`, `Transaction : Sendable`,
// `Transaction.RevocationReason : Sendable`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Transaction : Equatable {
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Transaction : Hashable {
}

@available(iOS 15.0, tvOS 15.0, macOS 12.0, watchOS 8.0, visionOS 1.0, *)
extension Transaction : Sendable {
}

@available(iOS 15.0, tvOS 15.0, macOS 12.0, watchOS 8.0, visionOS 1.0, *)
extension Transaction.RevocationReason : Sendable {
}

// Transcribed from Apple's published StoreKit interface:
// `Transaction.Transactions`, `Transaction.all`, `Transaction.currentEntitlements`,
// `Transaction.unfinished`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Transaction {

    public struct Transactions : AsyncSequence {

        /// The type of element produced by this asynchronous sequence.
        public typealias Element = VerificationResult<Transaction>

        /// The type of asynchronous iterator that produces elements of this
        /// asynchronous sequence.
        public struct AsyncIterator : AsyncIteratorProtocol {

            var feed: ScriptedChannel<VerificationResult<Transaction>>?

            /// Asynchronously advances to the next element and returns it, or ends the
            /// sequence if there is no next element.
            public mutating func next() async -> VerificationResult<Transaction>? {
                await feed?.next()
            }

            @available(iOS 15.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, macOS 12.0, *)
            public typealias Element = VerificationResult<Transaction>
        }

        let source: ScriptedAppStore.TransactionSource

        /// Creates the asynchronous iterator that produces elements of this
        /// asynchronous sequence.
        public func makeAsyncIterator() -> Transaction.Transactions.AsyncIterator {
            AsyncIterator(feed: ScriptedAppStore.current?.feed(source))
        }
    }

    /// A sequence of every transaction for this user and app.
    public static var all: Transaction.Transactions { Transactions(source: .all) }

    /// Returns all transactions for products the user is currently entitled to
    ///
    /// i.e. all currently-subscribed transactions, and all purchased (and not refunded) non-consumables
    public static var currentEntitlements: Transaction.Transactions { Transactions(source: .currentEntitlements) }

    /// A sequence of every unfinished transaction for this user and app.
    public static var unfinished: Transaction.Transactions { Transactions(source: .unfinished) }
}

// Transcribed from Apple's published StoreKit interface: `Transaction.updates`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Transaction {

    /// A sequence that emits a transaction each time it is created or updated.
    /// - Note: Any unfinished transactions will be emitted from `updates` when you first iterate the
    ///         sequence.
    public static var updates: Transaction.Transactions { Transactions(source: .updates) }
}

// Transcribed from Apple's published StoreKit interface:
// `Transaction.Transactions : Sendable`.
@available(iOS 15.0, tvOS 15.0, macOS 12.0, watchOS 8.0, visionOS 1.0, *)
extension Transaction.Transactions : Sendable {
}
#endif
