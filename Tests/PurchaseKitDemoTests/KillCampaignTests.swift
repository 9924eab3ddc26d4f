import Foundation
import PurchaseKit
import XCTest

/// Many example commands over three users in one state folder, each killed
/// (SIGKILL) just before one of its writes and followed by a `resume`, as
/// users force-quitting an app would. After every command the store's
/// records and the server's ledger must agree: every credit goes to the user
/// whose payment made the transaction, none twice, and the next launch
/// always recovers the folder.
final class KillCampaignTests: XCTestCase {
    private var demo: DemoProcess!
    private let users = ["alice", "bob", "carol"]
    private let coins = "com.example.purchasekit.coins.100"
    private let premium = "com.example.purchasekit.premium"

    override func setUpWithError() throws {
        demo = try DemoProcess.make()
    }

    override func tearDown() {
        demo.remove()
    }

    func testKilledCommandsNeverCreditAnotherUserOrLoseAPayment() throws {
        var random = SeededRandomNumberGenerator(seed: 20_261_123)
        var killed = 0
        for round in 0..<48 {
            let arguments = try nextCommand(using: &random)
            let point = Int.random(in: 1...40, using: &random)
            let run = try demo.run(arguments, environment: ["PURCHASEKIT_DEMO_DIE_AT_WRITE": "\(point)"])
            if run.status == SIGKILL || run.status == 128 + SIGKILL { killed += 1 }
            let resume = try demo.run(["resume"])
            XCTAssertEqual(resume.status, 0, "round \(round) \(arguments) killed at write \(point): \(resume.stderr)")
            try checkRecords("round \(round): \(arguments.joined(separator: " ")) killed at write \(point)")
        }
        XCTAssertGreaterThan(killed, 10, "the campaign must actually kill commands")
        // With nothing killed any more, every payment ends credited to its payer.
        XCTAssertEqual(try demo.run(["resume"]).status, 0)
        let credits = try checkRecords("end")
        XCTAssertGreaterThan(credits, 4, "the campaign must have credited payments to check")
        try checkRefundsApplied()
    }

    private func nextCommand(using random: inout SeededRandomNumberGenerator) throws -> [String] {
        let user = users.randomElement(using: &random) ?? "alice"
        let orders = try demo.orders()
        let deferred = orders.filter { $0["status"] as? String == "deferred" }.compactMap { $0["id"] as? String }
        let refundable = orders.filter { ["completed", "delivered"].contains($0["status"] as? String ?? "") }
            .compactMap { $0["transactionID"] as? String }
        switch Int.random(in: 0..<10, using: &random) {
        case 0...3:
            let scenario = ["success", "success", "ask-to-buy", "cancel", "fail", "lose-token", "verifier-down"]
                .randomElement(using: &random) ?? "success"
            return ["buy", coins, "--user", user, "--scenario", scenario]
        case 4: return ["buy", premium, "--user", user]
        case 5 where !deferred.isEmpty:
            return [Bool.random(using: &random) ? "approve" : "decline", deferred.randomElement(using: &random) ?? ""]
        case 6 where !refundable.isEmpty: return ["refund", refundable.randomElement(using: &random) ?? ""]
        case 7: return ["renew", "--months", "1"]
        case 8: return ["restore", "--user", user]
        default: return ["resume"]
        }
    }

    /// Every transaction the store refunded is revoked in the app, however the
    /// refund command was killed: the store announces a refund once, and the
    /// next launch learns the rest from the store's list of revocations.
    private func checkRefundsApplied() throws {
        let root = demo.directory.appendingPathComponent(".purchasekit-demo")
        let store = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("store.json"))) as? [String: Any]
        let refunded = Set((store?["records"] as? [[String: Any]] ?? []).compactMap { record -> String? in
            guard let transaction = record["transaction"] as? [String: Any], transaction["revocationDate"] != nil else { return nil }
            return transaction["id"] as? String
        })
        var checked = 0
        for order in try demo.orders() {
            guard let id = order["transactionID"] as? String, refunded.contains(id) else { continue }
            checked += 1
            XCTAssertEqual(order["status"] as? String, "revoked", "refunded transaction \(id) still grants: \(order)")
        }
        XCTAssertGreaterThan(checked, 0, "the campaign must have refunded something to check")
    }

    /// The store's records against the server's ledger.
    @discardableResult
    private func checkRecords(_ context: String, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let root = demo.directory.appendingPathComponent(".purchasekit-demo")
        let store = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("store.json"))) as? [String: Any]
        let backend = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("backend.json"))) as? [String: Any]
        var buyers: [String: String] = [:]
        for record in store?["records"] as? [[String: Any]] ?? [] {
            guard let transaction = record["transaction"] as? [String: Any], let id = transaction["id"] as? String else { continue }
            buyers[id] = record["userID"] as? String
        }
        var credited: [String: Int] = [:]
        for credit in backend?["credits"] as? [[String: Any]] ?? [] {
            guard let id = credit["transactionID"] as? String else { continue }
            credited[id, default: 0] += 1
            XCTAssertEqual(credit["userID"] as? String, buyers[id],
                           "\(context): transaction \(id) was credited to someone other than its payer", file: file, line: line)
        }
        for (id, count) in credited where count > 1 {
            XCTFail("\(context): transaction \(id) credited \(count) times", file: file, line: line)
        }
        return credited.count
    }
}
