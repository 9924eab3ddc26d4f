import Foundation
import XCTest

/// Attacks on the example from outside, as separate launches of the app.
final class HostileWorldTests: XCTestCase {
    private var demo: DemoProcess!
    private let coins = "com.example.purchasekit.coins.100"

    override func setUpWithError() throws {
        demo = try DemoProcess.make()
    }

    override func tearDown() {
        demo.remove()
    }

    /// Two launches with the same hashing seed once minted the same order
    /// token, so bob's payment was credited to alice's waiting order.
    func testOrderTokensNeverRepeatAcrossLaunches() throws {
        let sameSeed = ["SWIFT_DETERMINISTIC_HASHING": "1"]
        let alice = try demo.run(["buy", coins, "--user", "alice", "--scenario", "ask-to-buy"], environment: sameSeed)
        XCTAssertEqual(alice.status, 0, alice.stderr)
        let bob = try demo.run(["buy", coins, "--user", "bob"], environment: sameSeed)
        XCTAssertEqual(bob.status, 0, bob.stderr)

        let orders = try demo.orders()
        let aliceOrder = try XCTUnwrap(orders.first { $0["userID"] as? String == "alice" })
        let bobOrder = try XCTUnwrap(orders.first { $0["userID"] as? String == "bob" })
        XCTAssertEqual(aliceOrder["status"] as? String, "deferred", "alice's order waits for approval: \(orders)")
        XCTAssertNil(aliceOrder["transactionID"] as? String)
        XCTAssertEqual(aliceOrder["credited"] as? Bool, false)
        XCTAssertEqual(bobOrder["status"] as? String, "completed", "\(orders)")
        XCTAssertEqual(bobOrder["credited"] as? Bool, true)
    }
}
