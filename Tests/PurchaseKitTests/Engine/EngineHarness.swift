import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// Order ids `order-1`, `order-2`, ... so tests can name them.
final class CountingOrderGenerator: OrderGenerator {
    private let counter = Locked(0)
    func makeOrderID(for request: OrderRequest) async throws -> String {
        "order-\(counter.withLock { $0 += 1; return $0 })"
    }
}

/// An order generator whose server is down.
struct FailingOrderGenerator: OrderGenerator {
    struct Down: Error {}
    func makeOrderID(for request: OrderRequest) async throws -> String { throw Down() }
}

/// An order server that gives every order the same id (one made from a
/// clock that two requests read in the same millisecond).
struct RepeatingOrderGenerator: OrderGenerator {
    var orderID = "order-1700000000000"
    func makeOrderID(for request: OrderRequest) async throws -> String { orderID }
}

/// Collects every event of one subscription, so a test can read what happened.
actor EventLog {
    private(set) var events: [PurchaseEvent] = []
    private var task: Task<Void, Never>?

    init(_ engine: PurchaseEngine) async {
        let stream = await engine.events()
        task = Task { [weak self] in
            for await event in stream { await self?.append(event) }
        }
    }

    private var waiters: [(ready: @Sendable ([PurchaseEvent]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

    private func append(_ event: PurchaseEvent) {
        events.append(event)
        let seen = events
        let ready = waiters.filter { $0.ready(seen) }
        waiters.removeAll { $0.ready(seen) }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once at least `count` events have arrived.
    func waitForEvents(count: Int) async {
        await waitUntil { $0.count >= count }
    }

    /// Returns once an event matching `isWanted` has arrived (it may already have).
    func waitForEvent(where isWanted: @escaping @Sendable (PurchaseEvent) -> Bool) async {
        await waitUntil { $0.contains(where: isWanted) }
    }

    private func waitUntil(_ ready: @escaping @Sendable ([PurchaseEvent]) -> Bool) async {
        if ready(events) { return }
        await withCheckedContinuation { waiters.append((ready, $0)) }
    }

    /// The statuses one order passed through, in order.
    func statuses(of orderID: String) -> [OrderStatus] {
        events.compactMap {
            if case .orderChanged(let order, _) = $0, order.id == orderID { return order.status }
            return nil
        }
    }

    func stop() { task?.cancel() }
}
