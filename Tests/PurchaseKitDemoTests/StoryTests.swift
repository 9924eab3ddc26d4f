import Foundation
import XCTest

/// Stories told over several runs of the executable, as a user would.
final class StoryTests: XCTestCase {
    private var demo: DemoProcess!
    private let coins = "com.example.purchasekit.coins.100"

    override func setUpWithError() throws {
        demo = try DemoProcess.make()
    }

    override func tearDown() {
        demo.remove()
    }

    func testACrashAfterPurchasedThenResumeDeliversTheOrderExactlyOnceAndFinishesIt() throws {
        let crash = try demo.run(["buy", coins, "--crash-after", "purchased"])
        XCTAssertEqual(crash.status, 3, crash.stderr)
        XCTAssertTrue(crash.stdout.contains("Simulated crash: order order-1 is now durably 'purchased'"), crash.stdout)

        // What the crash left: a paid order owed a delivery, an unfinished transaction, no credit.
        let left = try demo.orders()
        XCTAssertEqual(left.count, 1)
        XCTAssertEqual(left.first?["status"] as? String, "purchased")
        XCTAssertEqual(left.first?["storeTransactionFinished"] as? Bool, false)
        XCTAssertEqual(left.first?["credited"] as? Bool, false)
        let transactionID = try XCTUnwrap(left.first?["transactionID"] as? String)

        let resume = try demo.run(["resume"])
        XCTAssertEqual(resume.status, 0, resume.stderr)
        XCTAssertTrue(resume.stdout.contains("order-1"), resume.stdout)
        XCTAssertTrue(resume.stdout.contains("delivered → completed"), resume.stdout)

        // A second launch finds nothing more to do.
        let again = try demo.run(["resume"])
        XCTAssertEqual(again.status, 0)
        XCTAssertFalse(again.stdout.contains("→"), again.stdout)

        let orders = try demo.orders()
        XCTAssertEqual(orders.count, 1, "\(orders)")
        let order = try XCTUnwrap(orders.first)
        XCTAssertEqual(order["id"] as? String, "order-1")
        XCTAssertEqual(order["productID"] as? String, coins)
        XCTAssertEqual(order["userID"] as? String, "alice")
        XCTAssertEqual(order["source"] as? String, "purchase")
        XCTAssertEqual(order["status"] as? String, "completed")
        XCTAssertEqual(order["transactionID"] as? String, transactionID)
        XCTAssertEqual(order["finished"] as? Bool, true)
        XCTAssertEqual(order["storeTransactionFinished"] as? Bool, true)
        XCTAssertEqual(order["credited"] as? Bool, true)
        XCTAssertEqual(order["open"] as? Bool, false)

        let users = try XCTUnwrap(try demo.json(["entitlements", "--user", "alice", "--json"]) as? [[String: Any]])
        XCTAssertEqual((users.first?["consumables"] as? [String: Int])?[coins], 1, "delivered once")
    }

    func testAVerifierOutageLeavesThePaidOrderOwedAndTheNextLaunchDeliversIt() throws {
        let buy = try demo.run(["buy", "com.example.purchasekit.premium", "--scenario", "verifier-down"])
        XCTAssertEqual(buy.status, 0, buy.stderr)
        XCTAssertTrue(buy.stdout.contains("delivery retry"), buy.stdout)
        XCTAssertEqual(try demo.orders().first?["status"] as? String, "purchased")
        XCTAssertEqual(try demo.orders().first?["storeTransactionFinished"] as? Bool, false)

        XCTAssertEqual(try demo.run(["resume"]).status, 0)
        let order = try XCTUnwrap(try demo.orders().first)
        XCTAssertEqual(order["status"] as? String, "completed")
        XCTAssertEqual(order["storeTransactionFinished"] as? Bool, true)
        let users = try XCTUnwrap(try demo.json(["entitlements", "--json"]) as? [[String: Any]])
        let owned = (users.first?["entitlements"] as? [[String: Any]])?.compactMap { $0["productID"] as? String }
        XCTAssertEqual(owned, ["com.example.purchasekit.premium"])
    }

    func testAskToBuyGrantsNothingUntilAParentApprovesInALaterRun() throws {
        let ask = try demo.run(["buy", "com.example.purchasekit.season", "--user", "sam", "--scenario", "ask-to-buy"])
        XCTAssertEqual(ask.status, 0, ask.stderr)
        XCTAssertEqual(try demo.orders().first?["status"] as? String, "deferred")
        var sam = try XCTUnwrap(try demo.json(["entitlements", "--user", "sam", "--json"]) as? [[String: Any]])
        XCTAssertEqual((sam.first?["entitlements"] as? [Any])?.count, 0)

        let approve = try demo.run(["approve", "order-1"])
        XCTAssertEqual(approve.status, 0, approve.stderr)
        let order = try XCTUnwrap(try demo.orders().first)
        XCTAssertEqual(order["status"] as? String, "completed")
        XCTAssertEqual(order["userID"] as? String, "sam")
        sam = try XCTUnwrap(try demo.json(["entitlements", "--user", "sam", "--json"]) as? [[String: Any]])
        XCTAssertEqual((sam.first?["entitlements"] as? [[String: Any]])?.first?["productID"] as? String, "com.example.purchasekit.season")

        XCTAssertEqual(try demo.run(["approve", "order-1"]).status, 1, "a request is answered once")
    }

    func testARefundRevokesTheEntitlementAndRenewalsAreDelivered() throws {
        XCTAssertEqual(try demo.run(["buy", "com.example.purchasekit.premium"]).status, 0)
        XCTAssertEqual(try demo.run(["buy", "com.example.purchasekit.plus.monthly"]).status, 0)
        let premium = try XCTUnwrap(try demo.orders().first { $0["productID"] as? String == "com.example.purchasekit.premium" })
        let refund = try demo.run(["refund", try XCTUnwrap(premium["transactionID"] as? String)])
        XCTAssertEqual(refund.status, 0, refund.stderr)
        XCTAssertTrue(refund.stdout.contains("completed → revoked"), refund.stdout)

        let renew = try demo.run(["renew", "--months", "2"])
        XCTAssertEqual(renew.status, 0, renew.stderr)
        let orders = try demo.orders()
        let monthly = orders.filter { $0["productID"] as? String == "com.example.purchasekit.plus.monthly" }
        XCTAssertEqual(monthly.count, 3, "the purchase and two renewals: \(monthly)")
        XCTAssertTrue(monthly.allSatisfy { $0["status"] as? String == "completed" && $0["userID"] as? String == "alice" })
        XCTAssertEqual(Set(monthly.compactMap { $0["transactionID"] as? String }).count, 3)
        XCTAssertEqual(orders.first { $0["id"] as? String == premium["id"] as? String }?["status"] as? String, "revoked")
        let users = try XCTUnwrap(try demo.json(["entitlements", "--json"]) as? [[String: Any]])
        let owned = (users.first?["entitlements"] as? [[String: Any]])?.compactMap { $0["productID"] as? String }
        XCTAssertEqual(owned, ["com.example.purchasekit.plus.monthly"])
    }

    func testTheTourRunsToTheEndWithoutColourWhenPiped() throws {
        let tour = try demo.run([])
        XCTAssertEqual(tour.status, 0, tour.stderr)
        XCTAssertFalse(tour.stdout.contains("\u{1B}["), "ANSI codes in piped output")
        for heading in ["Products", "A consumable", "A non-consumable", "A failed payment", "A verifier outage",
                        "A subscription", "Ask to Buy", "A crash", "Recovery", "Restore", "A refund", "Renewals", "Summary"] {
            XCTAssertTrue(tour.stdout.contains(". \(heading)\n"), "missing chapter \(heading)")
        }
        XCTAssertTrue(tour.stdout.contains("Simulated crash"))
        XCTAssertTrue(tour.stdout.contains("open orders: none"))

        // The story it leaves: every paid order delivered once and finished, except the refunded one.
        let orders = try demo.orders()
        XCTAssertFalse(orders.isEmpty)
        for order in orders where order["transactionID"] != nil {
            XCTAssertEqual(order["storeTransactionFinished"] as? Bool, true, "\(order)")
            XCTAssertTrue(["completed", "revoked"].contains(order["status"] as? String ?? ""), "\(order)")
        }
        let transactions = orders.compactMap { $0["transactionID"] as? String }
        XCTAssertEqual(transactions.count, Set(transactions).count, "a transaction on two orders")

        // Running it again tells the same story.
        let again = try demo.run([])
        XCTAssertEqual(again.stdout, tour.stdout)
    }

    func testColourOnlyWhereAsked() throws {
        // Standard output is a file here, so never colour, whatever NO_COLOR says.
        let plain = try demo.run(["orders"], environment: ["TERM": "xterm-256color"])
        XCTAssertFalse(plain.stdout.contains("\u{1B}["))
    }
}
