#if !canImport(StoreKit)
import Foundation

// Transcribed from Apple's published StoreKit interface: `PurchaseIntent`
// (product), `PurchaseIntent.PurchaseIntents`, `PurchaseIntent.intents`.
/// Represents a user's intent to purchase a product. This is created when the user starts a product promotion buy from the App Store.
@available(iOS 16.4, macOS 14.4, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@available(visionOS, unavailable)
public struct PurchaseIntent : Equatable, Sendable {

    /// The in-app purchase product associated with this intent
    public let product: Product
}

@available(iOS 16.4, macOS 14.4, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@available(visionOS, unavailable)
extension PurchaseIntent {

    public struct PurchaseIntents : AsyncSequence {

        /// The type of element produced by this asynchronous sequence.
        public typealias Element = PurchaseIntent

        /// The type of asynchronous iterator that produces elements of this
        /// asynchronous sequence.
        public struct AsyncIterator : AsyncIteratorProtocol {

            var feed: ScriptedChannel<PurchaseIntent>?

            /// Asynchronously advances to the next element and returns it, or ends the
            /// sequence if there is no next element.
            public mutating func next() async -> PurchaseIntent.PurchaseIntents.Element? {
                await feed?.next()
            }

            @available(iOS 16.4, macOS 14.4, *)
            @available(tvOS, unavailable)
            @available(watchOS, unavailable)
            @available(visionOS, unavailable)
            public typealias Element = PurchaseIntent.PurchaseIntents.Element
        }

        /// Creates the asynchronous iterator that produces elements of this
        /// asynchronous sequence.
        public func makeAsyncIterator() -> PurchaseIntent.PurchaseIntents.AsyncIterator {
            AsyncIterator(feed: ScriptedAppStore.current?.intentFeed())
        }
    }

    /// A sequence that emits a purchase intent each time it is created.
    /// - Important: Create a `Task` to iterate this sequence as early as possible when your app
    ///              launches.
    public static var intents: PurchaseIntent.PurchaseIntents { PurchaseIntents() }
}
#endif
