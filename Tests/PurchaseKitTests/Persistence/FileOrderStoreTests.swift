import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator

final class FileOrderStoreTests: XCTestCase {
    func testSavedOrdersSurviveARelaunchWithEveryField() async throws {
        let directory = try makeTemporaryDirectory(self)
        var paid = makeOrder("o-1", transactionID: "t-1")
        paid.verificationAttempts = 3
        paid.hint = "verifier timed out"
        paid.lastErrorCode = .verificationUnavailable
        paid.nextAttemptAt = paid.createdAt.addingTimeInterval(60.125)
        let other = makeOrder("o-2", user: "user-2", createdAt: paid.createdAt.addingTimeInterval(1))
        do {
            let store = try FileOrderStore(directory: directory)
            try await store.save(paid)
            try await store.save(other)
        }

        let relaunched = try FileOrderStore(directory: directory)
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.orders, [paid, other])
        XCTAssertEqual(report.problems, [])
        let byID = try await relaunched.order(id: "o-1")
        XCTAssertEqual(byID, paid)
        let byTransaction = try await relaunched.order(transactionID: "t-1")
        XCTAssertEqual(byTransaction, paid)
        let ofUser2 = try await relaunched.openOrders(forUser: "user-2")
        XCTAssertEqual(ofUser2, [other])
        let missing = try await relaunched.order(id: "nope")
        XCTAssertNil(missing)
        let missingTransaction = try await relaunched.order(transactionID: "t-nope")
        XCTAssertNil(missingTransaction)
    }

    func testSavingAgainReplacesTheOrderAndItsTransactionLink() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeStore(directory)
        var order = makeOrder("o-1", transactionID: "t-1")
        try await store.save(order)
        order.transaction?.id = "t-2"
        order.status = .delivered
        try await store.save(order)

        let relaunched = try makeStore(directory)
        let loaded = try await relaunched.loadOpenOrders().orders
        XCTAssertEqual(loaded, [order])
        let old = try await relaunched.order(transactionID: "t-1")
        XCTAssertNil(old)
        let new = try await relaunched.order(transactionID: "t-2")
        XCTAssertEqual(new?.status, .delivered)
        XCTAssertEqual(names(in: directory, "orders").count, 1)
    }

    func testArchivedOrdersLeaveTheOpenSetButAreStillFoundByIDAndTransaction() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeStore(directory)
        let done = makeOrder("o-done", transactionID: "t-done", status: .completed)
        let owed = makeOrder("o-owed", transactionID: "t-owed")
        try await store.save(done)
        try await store.save(owed)
        try await store.archive(orderID: "o-done")
        await assertThrows(.orderNotFound) { try await store.archive(orderID: "o-done") }
        await assertThrows(.orderNotFound) { try await store.archive(orderID: "never") }

        let relaunched = try makeStore(directory)
        let open = try await relaunched.loadOpenOrders().orders
        XCTAssertEqual(open, [owed])
        let openOfUser = try await relaunched.openOrders(forUser: "user-1")
        XCTAssertEqual(openOfUser, [owed])
        // A late duplicate of an archived transaction must still be recognised.
        let byTransaction = try await relaunched.order(transactionID: "t-done")
        XCTAssertEqual(byTransaction, done)
        let byID = try await relaunched.order(id: "o-done")
        XCTAssertEqual(byID, done)
        let archived = try await relaunched.archivedOrders()
        XCTAssertEqual(archived, [done])
        XCTAssertEqual(names(in: directory, "archive"), [FileNameCoding.fileName(for: "o-done")])
        XCTAssertEqual(names(in: directory, "orders"), [FileNameCoding.fileName(for: "o-owed")])
    }

    func testSavingAnArchivedOrderReopensItAndLeavesNoArchivedCopy() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeStore(directory)
        var order = makeOrder("o-1", transactionID: "t-1", status: .completed)
        try await store.save(order)
        try await store.archive(orderID: "o-1")
        order.status = .revoked
        try await store.save(order)

        XCTAssertEqual(names(in: directory, "archive"), [])
        let relaunched = try makeStore(directory)
        let open = try await relaunched.loadOpenOrders().orders
        XCTAssertEqual(open, [order])
        let archived = try await relaunched.archivedOrders()
        XCTAssertEqual(archived, [])
    }

    func testRemoveDeletesOpenAndArchivedOrdersAndIgnoresMissingOnes() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeStore(directory)
        try await store.save(makeOrder("open", transactionID: "t-open"))
        try await store.save(makeOrder("archived", transactionID: "t-archived"))
        try await store.archive(orderID: "archived")
        try await store.remove(orderID: "open")
        try await store.remove(orderID: "archived")
        try await store.remove(orderID: "missing")

        XCTAssertEqual(names(in: directory, "orders") + names(in: directory, "archive"), [])
        let relaunched = try makeStore(directory)
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.orders, [])
        let byTransaction = try await relaunched.order(transactionID: "t-archived")
        XCTAssertNil(byTransaction)
    }

    func testTokensResolveAfterARelaunchFromTheIndexWithoutListingAFolder() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeStore(directory)
        var open = makeOrder("o-open", status: .failed)
        open.token = "token-open"
        var archived = makeOrder("o-archived", transactionID: "t-archived", status: .completed)
        archived.token = "token-archived"
        try await store.save(open)
        try await store.save(archived)
        try await store.archive(orderID: "o-archived")

        let fileSystem = FaultyFileSystem()
        let relaunched = try makeStore(directory, fileSystem: fileSystem)
        _ = try await relaunched.loadOpenOrders()
        _ = fileSystem.takeCalls()
        let foundOpen = try await relaunched.order(token: "token-open")
        XCTAssertEqual(foundOpen, open)
        XCTAssertEqual(fileSystem.takeCalls(), [:], "an open order's token resolves in memory")
        let foundArchived = try await relaunched.order(token: "token-archived")
        XCTAssertEqual(foundArchived, archived)
        XCTAssertEqual(fileSystem.takeCalls(), [.read: 1], "an archived one costs the read of its own file, no listing")
        let missing = try await relaunched.order(token: "token-missing")
        XCTAssertNil(missing)
        XCTAssertEqual(fileSystem.takeCalls(), [:])
    }

    func testDirectoriesAndFilesAreOwnerOnly() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeStore(directory)
        try await store.save(makeOrder("o-1", status: .completed))
        try await store.save(makeOrder("o-2"))
        try await store.archive(orderID: "o-1")

        for folder in ["", "orders", "archive", "ledger", "quarantine"] {
            XCTAssertEqual(permissions(ofPath: directory.appendingPathComponent(folder).path), 0o700, folder)
        }
        let openFile = directory.appendingPathComponent("orders/" + FileNameCoding.fileName(for: "o-2")).path
        let archivedFile = directory.appendingPathComponent("archive/" + FileNameCoding.fileName(for: "o-1")).path
        XCTAssertEqual(permissions(ofPath: openFile), 0o600)
        XCTAssertEqual(permissions(ofPath: archivedFile), 0o600)
    }

    func testLooseFolderPermissionsAreTightenedAtLaunch() throws {
        let directory = try makeTemporaryDirectory(self)
        _ = try makeStore(directory)
        let orders = directory.appendingPathComponent("orders").path
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: orders)
        _ = try makeStore(directory)
        XCTAssertEqual(permissions(ofPath: orders), 0o700)
    }

    func testAFileWhereTheDirectoryShouldBeIsATypedError() throws {
        let directory = try makeTemporaryDirectory(self)
        try FileManager.default.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("not a directory".utf8).write(to: directory)
        XCTAssertThrowsError(try makeStore(directory)) { error in
            XCTAssertEqual((error as? PurchaseKitError)?.code, .persistenceWriteFailed)
            XCTAssertTrue("\(error)".contains("mkdir failed"), "\(error)")
        }
    }

    func testConcurrentSavesFromManyTasksAllLand() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeStore(directory)
        let count = 500
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await store.save(makeOrder("o-\(index)", user: "user-\(index % 7)", transactionID: "t-\(index)"))
                }
            }
            try await group.waitForAll()
        }
        XCTAssertEqual(names(in: directory, "orders").count, count, "one file per order, no temporary left")

        let relaunched = try makeStore(directory)
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(Set(report.orders.map(\.id)), Set((0..<count).map { "o-\($0)" }))
        XCTAssertEqual(report.problems, [])
        let found = try await relaunched.order(transactionID: "t-321")
        XCTAssertEqual(found?.id, "o-321")
        let ofUser = try await relaunched.openOrders(forUser: "user-3")
        XCTAssertEqual(ofUser.count, (0..<count).filter { $0 % 7 == 3 }.count)
    }
}
