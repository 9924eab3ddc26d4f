import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// The product every purchase rig buys, and how a round of purchases is made.
public enum PurchaseRounds {
    /// A consumable: buying it again always charges again, so every purchase
    /// runs the whole lifecycle (an owned non-consumable would be re-delivered).
    public static let coins = StoreProduct(id: "com.example.coins.100", type: .consumable, displayName: "100 coins",
                                           price: Decimal(string: "0.99")!)

    /// The engine configuration every purchase rig uses: the simulated
    /// store with no latency, the verifier that always delivers, and the
    /// library's defaults for everything else (timeouts, retry policy, UUID
    /// order ids). `queue` replaces the simulated store (see ``MinimalPaymentQueue``).
    public static func engine(store: any OrderStore, maximumConcurrentPurchases: Int,
                              queue: (any PaymentQueue)? = nil) throws -> PurchaseEngine {
        let clock = SystemClock()
        let queue = queue ?? SimulatedPaymentQueue(products: [coins], clock: clock, seed: 1)
        return try PurchaseEngine(configuration: .init(
            paymentQueue: queue, receiptVerifier: AlwaysDeliverVerifier(), orderStore: store,
            clock: clock, limits: .init(maximumConcurrentPurchases: maximumConcurrentPurchases)))
    }

    /// `total` purchases of ``coins`` by `inFlight` users at once (one
    /// payment in flight each), until the engine has nothing left to do;
    /// returns each purchase's latency in microseconds.
    public static func purchaseConcurrently(on engine: PurchaseEngine, total: Int, inFlight: Int) async throws -> [Int] {
        let tickets = Tickets(total)
        let latencies = try await withThrowingTaskGroup(of: [Int].self) { group in
            for worker in 0..<inFlight {
                group.addTask {
                    var mine: [Int] = []
                    let clock = ContinuousClock()
                    while tickets.take() {
                        let start = clock.now
                        let result = try await engine.purchase(productID: coins.id, user: "user-\(worker)")
                        guard case .success = result else { throw RigFailure("A purchase did not succeed: \(result)") }
                        mine.append(microseconds(start.duration(to: clock.now)))
                    }
                    return mine
                }
            }
            var all: [Int] = []
            for try await mine in group { all += mine }
            return all
        }
        await engine.waitUntilIdle()
        return latencies
    }

    /// A duration in whole microseconds.
    public static func microseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
    }
}

/// Why a rig could not run as designed.
public struct RigFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A fixed number of tickets handed out to concurrent workers.
///
/// `@unchecked Sendable` is safe: the count is only touched under the lock.
public final class Tickets: @unchecked Sendable {
    private let lock = NSLock()
    private var left: Int

    public init(_ count: Int) { left = count }

    /// Takes a ticket; false once none is left.
    public func take() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard left > 0 else { return false }
        left -= 1
        return true
    }
}
