import Foundation
import XCTest

/// `--json` on `buy` and `restore`: only JSON on standard output, with the
/// result a script needs; and `approve` without an order id.
final class JSONResultTests: XCTestCase {
    private var demo: DemoProcess!

    override func setUpWithError() throws {
        demo = try DemoProcess.make()
    }

    override func tearDown() {
        demo.remove()
    }

    private static let premium = "com.example.purchasekit.premium"
    private static let coins = "com.example.purchasekit.coins.100"
    private static let season = "com.example.purchasekit.season"

    func testBuyJSONSaysHowThePurchaseEnded() throws {
        let bought = try XCTUnwrap(try demo.json(["buy", Self.premium, "--json"]) as? [String: Any])
        XCTAssertEqual(bought["result"] as? String, "success")
        XCTAssertNil(bought["pendingReason"])
        let order = try XCTUnwrap(bought["order"] as? [String: Any])
        XCTAssertEqual(order["productID"] as? String, Self.premium)
        XCTAssertEqual(order["userID"] as? String, "alice")
        XCTAssertEqual(order["status"] as? String, "completed")
        XCTAssertEqual(order["source"] as? String, "purchase")
        XCTAssertNotNil(order["transactionID"] as? String)

        let cancelled = try XCTUnwrap(try demo.json(["buy", Self.coins, "--scenario", "cancel", "--json"]) as? [String: Any])
        XCTAssertEqual(cancelled["result"] as? String, "userCancelled")
        XCTAssertNil((cancelled["order"] as? [String: Any])?["transactionID"])

        let waiting = try XCTUnwrap(try demo.json(["buy", Self.season, "--scenario", "ask-to-buy", "--json", "--user", "bob"])
            as? [String: Any])
        XCTAssertEqual(waiting["result"] as? String, "pending")
        XCTAssertEqual(waiting["pendingReason"] as? String, "awaitingApproval")
        XCTAssertEqual((waiting["order"] as? [String: Any])?["userID"] as? String, "bob")
    }

    func testAFailedBuyWithJSONStillExitsOneWithTheMessage() throws {
        let result = try demo.run(["buy", Self.coins, "--scenario", "fail", "--json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stdout.isEmpty, "no narration mixed into the JSON: \(result.stdout)")
        XCTAssertTrue(result.stderr.hasPrefix("error: "), result.stderr)
    }

    func testRestoreJSONSaysWhatWasRestored() throws {
        XCTAssertEqual(try demo.run(["buy", Self.premium]).status, 0)
        let restored = try XCTUnwrap(try demo.json(["restore", "--json"]) as? [String: Any])
        XCTAssertEqual(restored["user"] as? String, "alice")
        XCTAssertEqual(restored["userCancelled"] as? Bool, false)
        XCTAssertEqual(restored["restoredProductIDs"] as? [String], [Self.premium])
        XCTAssertEqual((restored["delivered"] as? [[String: Any]])?.map { $0["status"] as? String }, ["completed"])
        XCTAssertEqual((restored["owed"] as? [Any])?.count, 0)
        XCTAssertEqual((restored["failures"] as? [Any])?.count, 0)

        // Bob on the same account: the server credited Alice, so nothing is Bob's.
        let bob = try XCTUnwrap(try demo.json(["restore", "--user", "bob", "--json"]) as? [String: Any])
        XCTAssertEqual(bob["restoredProductIDs"] as? [String], [])
    }

    func testApproveWithoutAnIDApprovesTheOneOrderWaiting() throws {
        var result = try demo.run(["approve"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("No order is waiting for approval"), result.stderr)
        XCTAssertEqual(try demo.run(["buy", Self.season, "--scenario", "ask-to-buy"]).status, 0)
        XCTAssertEqual(try demo.run(["buy", Self.coins, "--scenario", "ask-to-buy"]).status, 0)
        result = try demo.run(["approve"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("Several orders wait for approval"), result.stderr)
        let waiting = try demo.orders().filter { $0["status"] as? String == "deferred" }
        let coinsOrder = try XCTUnwrap(waiting.first { $0["productID"] as? String == Self.coins }?["id"] as? String)
        XCTAssertEqual(try demo.run(["decline", coinsOrder]).status, 0)
        result = try demo.run(["approve"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let orders = try demo.orders()
        XCTAssertEqual(orders.first { $0["productID"] as? String == Self.season }?["status"] as? String, "completed")
        XCTAssertEqual(orders.first { $0["productID"] as? String == Self.coins }?["status"] as? String, "failed")
    }
}
