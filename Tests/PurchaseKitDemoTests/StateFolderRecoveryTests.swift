import Foundation
import PurchaseKit
import XCTest

/// A kill at any moment leaves a state folder that the next launch opens: a
/// run killed during the first `buy` of a fresh folder, before the backend
/// state was renamed into place, leaves only the temporary file of that write
/// (Foundation's `.dat.nosync…`) and perhaps the order store's empty folders.
final class StateFolderRecoveryTests: XCTestCase {
    private var demo: DemoProcess!
    private var state: URL { demo.directory.appendingPathComponent(".purchasekit-demo") }

    override func setUpWithError() throws {
        demo = try DemoProcess.make()
    }

    override func tearDown() {
        demo.remove()
    }

    /// The folder as the kill left it: half of the backend's first write, under Foundation's temporary name.
    private func leaveInterruptedFirstWrite() throws -> URL {
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let leftover = state.appendingPathComponent(".dat.nosync3A7F.q8ZkLm")
        try Data(#"{"credits":[],"nextOrderNumber":1,"no"#.utf8).write(to: leftover)
        return leftover
    }

    func testResumeRecoversAFolderHoldingOnlyAnInterruptedFirstWrite() throws {
        let leftover = try leaveInterruptedFirstWrite()

        let resumed = try demo.run(["resume"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertFalse(resumed.stderr.contains("holds no demo state"), resumed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover.path), "the leftover is cleaned up")
        XCTAssertTrue(FileManager.default.fileExists(atPath: state.appendingPathComponent("backend.json").path))
        XCTAssertEqual(try demo.orders().count, 0)

        // The story goes on from there.
        let bought = try demo.run(["buy", "com.example.purchasekit.coins.100"])
        XCTAssertEqual(bought.status, 0, bought.stderr)
        let orders = try demo.orders()
        XCTAssertEqual(orders.map { $0["status"] as? String }, ["completed"])
    }

    func testResumeRecoversAFolderHoldingTheOrderStoresFoldersAndTheirLeftovers() throws {
        _ = try leaveInterruptedFirstWrite()
        let store = state.appendingPathComponent("orders")
        for folder in ["orders", "archive", "ledger", "quarantine"] {
            try FileManager.default.createDirectory(at: store.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let partial = store.appendingPathComponent("orders/.tmp-0b1c2d3e-0000-4000-8000-000000000000.partial")
        try Data(#"{"id":"order-1","sta"#.utf8).write(to: partial)

        let resumed = try demo.run(["resume"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertFalse(resumed.stderr.contains("set aside"), resumed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial.path), "the store removed its own temporary file")
        let orders = try demo.json(["orders", "--json"]) as? [Any]
        XCTAssertEqual(orders?.count, 0)
    }

    func testAnInterruptedSnapshotOfTheJournalIsCleanedUp() throws {
        XCTAssertEqual(try demo.run(["buy", "com.example.purchasekit.coins.100", "--user", "alice"]).status, 0)
        let journal = state.appendingPathComponent("orders/journal")
        let partial = journal.appendingPathComponent(".tmp-0b1c2d3e-0000-4000-8000-000000000000.partial")
        try Data([0xA5, 0x4A, 0x52]).write(to: partial)

        let resumed = try demo.run(["resume"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertFalse(resumed.stderr.contains("set aside"), resumed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial.path), "the store removed its own temporary file")
        XCTAssertEqual(try demo.orders().map { $0["status"] as? String }, ["completed"])
    }

    /// A story written by an earlier version of the demo, whose orders were in a
    /// `FileOrderStore`, goes on with every order.
    func testAStoryWrittenWithTheFileOrderStoreGoesOnWithEveryOrder() async throws {
        XCTAssertEqual(try demo.run(["buy", "com.example.purchasekit.coins.100", "--user", "alice"]).status, 0)
        XCTAssertEqual(try demo.run(["buy", "com.example.purchasekit.coins.100", "--user", "bob", "--scenario", "verifier-down"]).status, 0)
        let before = try demo.json(["orders", "--json"]) as? [[String: Any]]
        XCTAssertEqual(before?.count, 2)

        // The same orders, as the earlier version kept them.
        let folder = state.appendingPathComponent("orders")
        let journal = try JournalOrderStore(directory: folder)
        let open = try await journal.loadOpenOrders().orders
        let archived = try await journal.archivedOrders()
        await journal.close()
        try FileManager.default.removeItem(at: folder)
        let legacy = try FileOrderStore(directory: folder)
        for order in open + archived { try await legacy.save(order) }
        for order in archived { try await legacy.archive(orderID: order.id) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("journal").path))

        let after = try demo.json(["orders", "--json"]) as? [[String: Any]]
        XCTAssertEqual(after.map { try? JSONSerialization.data(withJSONObject: $0, options: .sortedKeys) },
                       before.map { try? JSONSerialization.data(withJSONObject: $0, options: .sortedKeys) })
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("orders").path), [])
        // And the story goes on: bob's owed delivery goes through.
        XCTAssertEqual(try demo.run(["resume"]).status, 0)
        XCTAssertEqual(try demo.orders().compactMap { $0["status"] as? String }.sorted(), ["completed", "completed"])
    }

    func testLeftoversBesideSomeoneElsesFileDoNotMakeAStateFolder() throws {
        let leftover = try leaveInterruptedFirstWrite()
        try Data("keep".utf8).write(to: state.appendingPathComponent("holiday.jpg"))

        let resumed = try demo.run(["resume"])
        XCTAssertEqual(resumed.status, 1)
        XCTAssertTrue(resumed.stderr.contains("holds no demo state"), resumed.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: state.path).sorted(),
                       [".dat.nosync3A7F.q8ZkLm", "holiday.jpg"], "nothing was touched")
        XCTAssertTrue(FileManager.default.fileExists(atPath: leftover.path))
    }
}
