import Foundation
import PurchaseKit
import XCTest

/// The command line as a user meets it: help, usage errors, failures, JSON.
final class CommandLineTests: XCTestCase {
    private var demo: DemoProcess!

    override func setUpWithError() throws {
        demo = try DemoProcess.make()
    }

    override func tearDown() {
        demo.remove()
    }

    static let commands = ["tour", "products", "buy", "resume", "approve", "decline", "refund", "restore", "renew",
                           "entitlements", "orders", "chaos", "states", "help"]

    func testHelpListsEveryCommand() throws {
        for flag in ["--help", "-h"] {
            let result = try demo.run([flag])
            XCTAssertEqual(result.status, 0)
            XCTAssertTrue(result.stdout.hasPrefix("USAGE: purchasekit-demo"), result.stdout)
            for command in Self.commands {
                XCTAssertTrue(result.stdout.contains("\n  \(command) "), "\(command) is not listed")
            }
            XCTAssertEqual(result.stderr, "")
        }
    }

    func testEveryCommandHasItsOwnHelp() throws {
        for command in Self.commands {
            let result = try demo.run([command, "--help"])
            XCTAssertEqual(result.status, 0, command)
            XCTAssertTrue(result.stdout.hasPrefix("USAGE: purchasekit-demo \(command)"), "\(command): \(result.stdout)")
            XCTAssertTrue(result.stdout.contains("--state-dir DIR"), command)
        }
        // Help never touches the state folder.
        XCTAssertFalse(FileManager.default.fileExists(atPath: demo.directory.appendingPathComponent(".purchasekit-demo").path))
    }

    func testBadArgumentsPrintTheUsageAndExitWithTwo() throws {
        let cases: [([String], String)] = [
            (["bogus"], "unknown command 'bogus'"),
            (["buy"], "missing PRODUCT_ID"),
            (["buy", "a", "b"], "unexpected argument 'b'"),
            (["buy", "x", "--scenario", "nope"], "--scenario must be one of"),
            (["buy", "x", "--crash-after", "exploded"], "--crash-after must be an order status"),
            (["buy", "x", "--user"], "option '--user' needs a value"),
            (["renew"], "missing --months"),
            (["renew", "--months", "0"], "--months must be a whole number"),
            (["renew", "--months", "many"], "--months must be a whole number"),
            (["orders", "--bogus"], "unknown option '--bogus'"),
            (["orders", "--json=yes"], "takes no value"),
            (["orders", "extra"], "unexpected argument 'extra'"),
            (["states", "--format", "png"], "--format must be one of mermaid, dot"),
            (["chaos", "--runs", "0"], "--runs must be a whole number"),
            (["chaos", "--runs", "ten"], "--runs must be a whole number"),
            (["chaos", "--seed", "-3"], "--seed must be a whole number"),
            (["products", "--config"], "option '--config' needs a value"),
            (["help", "nothing"], "unknown command 'nothing'"),
        ]
        for (arguments, message) in cases {
            let result = try demo.run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments)")
            XCTAssertTrue(result.stderr.hasPrefix("error: "), "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("USAGE: purchasekit-demo"), "\(arguments): no usage")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
        }
    }

    func testFailuresPrintTheMessageAndExitWithOneWithoutAStackTrace() throws {
        let cases: [([String], String)] = [
            (["buy", "no.such.product"], "The store sells no product 'no.such.product'"),
            (["refund", "999"], "no transaction '999'"),
            (["approve", "order-42"], "Order 'order-42' is not waiting for approval"),
            (["products", "--config", "missing.storekit"], "could not be opened"),
            (["buy", "com.example.purchasekit.coins.100", "--scenario", "fail"], "The store refused the payment"),
        ]
        for (arguments, message) in cases {
            let result = try demo.run(arguments)
            XCTAssertEqual(result.status, 1, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("error: "), "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("Fatal error") || result.stderr.contains("Stack dump"), "\(arguments)")
        }
    }

    func testASecondRefundOfOneTransactionIsAClearError() throws {
        XCTAssertEqual(try demo.run(["buy", "com.example.purchasekit.premium"]).status, 0)
        let id = try XCTUnwrap(try demo.orders().first?["transactionID"] as? String)
        XCTAssertEqual(try demo.run(["refund", id]).status, 0)
        let again = try demo.run(["refund", id])
        XCTAssertEqual(again.status, 1, again.stderr)
        XCTAssertTrue(again.stderr.contains("Transaction \(id) was already refunded"), again.stderr)
        XCTAssertEqual(try demo.orders().first?["status"] as? String, "revoked")
    }

    func testAForeignNonEmptyFolderIsNotUsedAsAStateFolder() throws {
        let foreign = demo.directory.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: foreign.appendingPathComponent("holiday.jpg"))
        let result = try demo.run(["buy", "com.example.purchasekit.coins.100", "--state-dir", "photos"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("holds no demo state"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: foreign.path), ["holiday.jpg"])
    }

    func testProductsJSONListsTheFixtureWithTypesPricesAndPeriods() throws {
        let fixture = try XCTUnwrap(Bundle.module.url(forResource: "Shop", withExtension: "storekit", subdirectory: "Fixtures"))
        let products = try XCTUnwrap(try demo.json(["products", "--config", fixture.path, "--json"]) as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: products.compactMap { product in (product["id"] as? String).map { ($0, product) } })
        XCTAssertEqual(byID.keys.sorted(), ["test.shop.club.monthly", "test.shop.gems", "test.shop.hintpass", "test.shop.noads"])
        XCTAssertEqual(byID["test.shop.gems"]?["type"] as? String, "consumable")
        XCTAssertEqual(byID["test.shop.noads"]?["type"] as? String, "nonConsumable")
        XCTAssertEqual(byID["test.shop.club.monthly"]?["type"] as? String, "autoRenewable")
        XCTAssertEqual(byID["test.shop.hintpass"]?["type"] as? String, "nonRenewable")
        XCTAssertEqual(byID["test.shop.gems"]?["displayPrice"] as? String, "1.99")
        XCTAssertEqual(byID["test.shop.club.monthly"]?["displayPrice"] as? String, "3.49")
        XCTAssertEqual(byID["test.shop.club.monthly"]?["period"] as? String, "P1M")
        XCTAssertNil(byID["test.shop.gems"]?["period"])
        XCTAssertEqual(byID["test.shop.noads"]?["displayName"] as? String, "No Ads")
    }

    func testStatesDrawEveryMoveOfTheTransitionTable() throws {
        let mermaid = try demo.run(["states"])
        XCTAssertEqual(mermaid.status, 0)
        let mermaidLines = Set(mermaid.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        XCTAssertTrue(mermaidLines.contains("stateDiagram-v2"))
        let dot = try demo.run(["states", "--format", "dot"])
        XCTAssertEqual(dot.status, 0)
        XCTAssertTrue(dot.stdout.hasPrefix("digraph OrderLifecycle {"))
        let dotLines = Set(dot.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        for move in OrderTransitionTable.allMoves {
            XCTAssertTrue(mermaidLines.contains("\(move.from.rawValue) --> \(move.to.rawValue)"), "\(move)")
            XCTAssertTrue(dotLines.contains("\(move.from.rawValue) -> \(move.to.rawValue);"), "\(move)")
        }
        let drawnMoves = mermaidLines.filter { $0.contains(" --> ") && !$0.contains("[*]") }
        XCTAssertEqual(drawnMoves.count, OrderTransitionTable.allMoves.count)
    }

    func testTheIntegrationGuideShowsTheDiagramTheTableDraws() throws {
        let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/IntegrationGuide.md")
        let text = try String(contentsOf: guide, encoding: .utf8)
        let start = try XCTUnwrap(text.range(of: "```mermaid\n"))
        let end = try XCTUnwrap(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
        let states = try demo.run(["states", "--format", "mermaid"])
        XCTAssertEqual(String(text[start.upperBound..<end.lowerBound]) + "\n", states.stdout,
                       "regenerate the diagram with `purchasekit-demo states`")
    }
}
