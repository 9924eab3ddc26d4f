import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator
import XCTest

/// Two launches of one engine at once, and an engine shut down while its
/// work still runs next to the engine that replaced it on the same order
/// store: neither may move back an order the other moved on.
final class PurchaseEngineRelaunchRaceTests: XCTestCase {
    /// An engine shut down while its verifier call is out (the app relaunched
    /// the engine in the same process) gets the late answer after the next
    /// engine has delivered the order. Its copy of the order is stale: saving
    /// it once put the completed order back to `purchased` in the order store,
    /// and the user's paid coins left the balance.
    func testAShutDownEngineAnsweredLateDoesNotMoveBackWhatTheNextEngineDelivered() async throws {
        let world = World()
        let gate = Gate()
        let late = InterceptingVerifier(wrapping: world.server) { _ in
            await gate.pass()
            return .answer(.retryLater(reason: "the network went down"))
        }
        let first = try await world.engine(world.configuration(verifier: late))
        let call = Task { try await first.purchase(productID: Catalog.coins, user: "alice") }
        await gate.waitForArrivals(1) // paid, saved `purchased`, its verification out
        await first.shutdown()
        _ = try? await call.value

        let next = try await world.engine()
        let delivered = await world.orders.order(id: "order-1")
        XCTAssertEqual(delivered?.status, .completed, "the next engine delivered the replayed payment")

        gate.open() // the old engine's verifier answers now
        await first.waitUntilIdle()

        let stored = await world.orders.order(id: "order-1")
        XCTAssertEqual(stored?.status, .completed, "the shut-down engine saved nothing over the next engine's order")
        let balance = try await next.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 1)
        let credits = await world.creditCounts()
        XCTAssertEqual(Array(credits.values), [1])
    }

    /// An order waiting for assignment, assigned to dave by the next engine
    /// and delivered; then the old engine, shut down, is asked to give it to
    /// erin. Its stale copy still said "unassigned", and its save made erin
    /// the order's user although the server credited dave.
    func testAShutDownEngineAssignsNothing() async throws {
        let world = World()
        let first = try await world.engine()
        await first.setCurrentUser("carol")
        // A token no order holds: it waits for the app to assign it.
        try await world.store.add(Payment(productID: Catalog.pro, orderToken: "9f0c7d4e-0000-4000-8000-000000000001", userID: "dave"))
        await first.waitUntilIdle()
        let open = await first.openOrders()
        let order = try XCTUnwrap(open.first { $0.status == .needsAttention })
        await first.shutdown()

        let next = try await world.engine()
        let dave = try await next.assign(orderID: order.id, toUser: "dave")
        XCTAssertEqual(dave.status, .completed)
        do {
            let erin = try await first.assign(orderID: order.id, toUser: "erin")
            XCTFail("a shut-down engine must not assign, got \(erin.userID) \(erin.status)")
        } catch let error as PurchaseKitError {
            XCTAssertEqual(error.code, .engineShutDown)
        }

        let stored = await world.orders.order(id: order.id)
        XCTAssertEqual(stored?.userID, "dave", "the order names the user the server credited")
        let credits = await world.server.allCredits
        XCTAssertEqual(credits.map(\.userID), ["dave"])
    }

    /// Two `start()` calls at once (an app that starts the engine from two
    /// places at launch). The second one used to pass the `started` check
    /// while the first was loading, load too, and put its copy of each order
    /// over what the first launch had done with it since: here a paid order
    /// the first launch delivered and archived came back as `purchasing`,
    /// expired, and was saved `failed`, and the coins left the balance.
    func testTwoStartsAtOnceLoadTheOrdersOnce() async throws {
        let world = World()
        var configuration = world.configuration()
        configuration.limits.paymentExpiry = 3_600
        // A process killed while the store took the payment: the order is
        // `purchasing`, the paid transaction unfinished with the store.
        let killed = try await world.engine(configuration)
        await world.store.setHoldsUpdates(true)
        let events = await killed.events()
        let call = Task { try await killed.purchase(productID: Catalog.coins, user: "alice") }
        for await event in events {
            if case .orderChanged(let order, _) = event, order.status == .purchasing { break }
        }
        await killed.shutdown()
        _ = try? await call.value
        await world.store.releaseHeldUpdates()

        // The first load is held until the test lets it through; a second
        // call either loads too (held separately), or waits for the first.
        let inside = Beacon()
        let firstLoad = Gate(), secondLoad = Gate()
        let loads = Locked(0)
        let orders = InterceptingOrderStore(wrapping: world.orders) { call in
            guard call.name == .loadOpenOrders else { return .proceed }
            let gate = loads.withLock { $0 += 1; return $0 } == 1 ? firstLoad : secondLoad
            inside.signal()
            // Read now, answered when the gate lets it through.
            return .proceedThen { _ in await gate.pass() }
        }
        configuration.orderStore = orders
        configuration.logHandler = BeaconLogHandler(inside, on: "start() called while the engine starts")
        let engine = try PurchaseEngine(configuration: configuration)
        let first = Task { try await engine.start() }
        await inside.wait(count: 1)
        let second = Task { try await engine.start() }
        await inside.wait(count: 2)

        firstLoad.open()
        _ = try await first.value
        await engine.waitUntilIdle()
        let delivered = await world.orders.order(id: "order-1")
        XCTAssertEqual(delivered?.status, .completed, "the first launch delivered the replayed payment")

        secondLoad.open()
        let report = try await second.value
        XCTAssertEqual(report.orders.map(\.status), [.purchasing], "the second call answers with the launch's report")
        await engine.waitUntilIdle()
        await world.advance(by: 3_600, engine) // past the payment expiry

        XCTAssertEqual(loads.withLock { $0 }, 1, "the orders were loaded once")
        let stored = await world.orders.order(id: "order-1")
        XCTAssertEqual(stored?.status, .completed)
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance[Catalog.coins], 1, "the paid coins stay")
        let diagnostics = await engine.diagnostics
        XCTAssertEqual(diagnostics.verificationCalls, 1)
    }
}

/// Counts signals, and lets a test wait for a number of them.
private final class Beacon: Sendable {
    private struct State {
        var count = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = Locked(State())

    func signal() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count += 1
            let count = state.count
            defer { state.waiters.removeAll { $0.count <= count } }
            return state.waiters.filter { $0.count <= count }.map(\.continuation)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once `count` signals have come in all.
    func wait(count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state -> Bool in
                if state.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }
}

/// Signals a beacon for every log line that starts with `prefix`.
private struct BeaconLogHandler: PurchaseLogHandler {
    let beacon: Beacon
    let prefix: String
    var minimumLevel: PurchaseLogLevel { .trace }

    init(_ beacon: Beacon, on prefix: String) {
        self.beacon = beacon
        self.prefix = prefix
    }

    func log(_ record: LogRecord) {
        if record.message.hasPrefix(prefix) { beacon.signal() }
    }
}
