import Foundation
import XCTest
@testable import PurchaseKit

final class FileOrderStoreLoadingTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self)
    }

    private func url(_ folder: String, _ name: String) -> URL {
        directory.appendingPathComponent(folder).appendingPathComponent(name)
    }

    private func fileURL(of id: String, in folder: String = "orders") -> URL {
        url(folder, FileNameCoding.fileName(for: id))
    }

    func testALeftoverTemporaryFileIsDeletedAndThePreviousVersionLoads() async throws {
        let store = try makeStore(directory)
        let order = makeOrder("o-1", transactionID: "t-1")
        try await store.save(order)
        try await store.save(makeOrder("o-2", status: .completed))
        try await store.archive(orderID: "o-2")
        // A crash in the middle of the next write leaves half a temporary file in each folder.
        var newer = order
        newer.status = .delivered
        let half = try OrderCoding.encode(newer).prefix(40)
        try half.write(to: url("orders", FileNameCoding.temporaryName()))
        try half.write(to: url("archive", FileNameCoding.temporaryName()))

        let log = RecordingLogHandler()
        let relaunched = try makeStore(directory, logHandler: log)
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.orders, [order])
        XCTAssertEqual(report.problems, [])
        XCTAssertEqual(names(in: directory, "orders"), [FileNameCoding.fileName(for: "o-1")])
        XCTAssertEqual(names(in: directory, "archive"), [FileNameCoding.fileName(for: "o-2")])
        XCTAssertEqual(log.records.filter { $0.message.contains("temporary") }.count, 2)
    }

    func testAHalfWrittenOrderFileIsQuarantinedAndReportedOnceAndTheOthersLoad() async throws {
        let store = try makeStore(directory)
        let damaged = makeOrder("o-damaged", transactionID: "t-damaged")
        let intact = makeOrder("o-intact", transactionID: "t-intact")
        try await store.save(damaged)
        try await store.save(intact)
        let bytes = try Data(contentsOf: fileURL(of: "o-damaged"))
        try bytes.prefix(bytes.count / 2).write(to: fileURL(of: "o-damaged"))

        let log = RecordingLogHandler()
        let relaunched = try makeStore(directory, logHandler: log)
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.orders, [intact])
        XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt])
        let message = report.problems.first?.message ?? ""
        XCTAssertTrue(message.contains("orders/\(FileNameCoding.fileName(for: "o-damaged"))"), message)
        XCTAssertTrue(message.contains("quarantine/"), message)
        XCTAssertEqual(names(in: directory, "orders"), [FileNameCoding.fileName(for: "o-intact")])
        let quarantined = names(in: directory, "quarantine")
        XCTAssertEqual(quarantined.count, 1)
        XCTAssertEqual(try Data(contentsOf: url("quarantine", quarantined[0])), bytes.prefix(bytes.count / 2),
                       "moved aside, not changed")
        let warnings = log.records.filter { $0.level == .warning }
        XCTAssertEqual(warnings.count, 1)
        XCTAssertEqual(warnings.first?.metadata["file"], "orders/\(FileNameCoding.fileName(for: "o-damaged"))")
        let logged = log.records.map { "\($0.message) \($0.metadata)" }.joined()
        XCTAssertFalse(logged.contains("receipt-o-damaged") || "\(report.problems)".contains("receipt-o-damaged"))

        let again = try await relaunched.loadOpenOrders()
        XCTAssertEqual(again.problems, [], "a problem is reported once")
        let missing = try await relaunched.order(transactionID: "t-damaged")
        XCTAssertNil(missing)
    }

    func testTruncationAtEveryByteOffsetIsQuarantinedAndNeverHidesTheOtherOrders() async throws {
        let fileSystem = FaultyFileSystem()
        fileSystem.disableSync()  // Hundreds of relaunches; durability is tested elsewhere.
        let store = try makeStore(directory, fileSystem: fileSystem)
        let victim = makeOrder("o-victim", transactionID: "t-victim")
        let others = [makeOrder("o-a", transactionID: "t-a"), makeOrder("o-b", user: "user-2")]
        for order in others + [victim] { try await store.save(order) }
        let bytes = try Data(contentsOf: fileURL(of: "o-victim"))
        XCTAssertGreaterThan(bytes.count, 300)

        for length in 0...bytes.count {
            try bytes.prefix(length).write(to: fileURL(of: "o-victim"))
            let relaunched = try makeStore(directory, fileSystem: fileSystem)
            let report = try await relaunched.loadOpenOrders()
            let loadedOthers = report.orders.filter { $0.id != "o-victim" }
            XCTAssertEqual(loadedOthers, others, "length \(length)")
            if length == bytes.count {
                XCTAssertEqual(report.orders.count, 3)
                XCTAssertEqual(report.problems, [])
            } else {
                // A proper prefix of a JSON object is never valid JSON.
                XCTAssertEqual(report.orders.count, 2, "length \(length)")
                XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt], "length \(length)")
                XCTAssertEqual(names(in: directory, "quarantine").count, 1, "length \(length)")
                try FileManager.default.removeItem(at: directory.appendingPathComponent("quarantine"))
                try FileManager.default.createDirectory(at: directory.appendingPathComponent("quarantine"),
                                                        withIntermediateDirectories: false)
            }
        }
    }

    func testRandomGarbageIsQuarantinedAndTheValidOrdersLoad() async throws {
        let store = try makeStore(directory)
        let valid = (0..<5).map { makeOrder("o-\($0)", transactionID: "t-\($0)") }
        for order in valid { try await store.save(order) }
        var random = SeededRandomNumberGenerator(seed: 20_260_401)
        let garbageCount = 100
        for index in 0..<garbageCount {
            let length = Int.random(in: 0...2_000, using: &random)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let folder = index.isMultiple(of: 4) ? "archive" : "orders"
            try Data(bytes).write(to: fileURL(of: "garbage-\(index)", in: folder))
        }

        let relaunched = try makeStore(directory)
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.orders, valid)
        XCTAssertEqual(report.problems.count, garbageCount)
        XCTAssertTrue(report.problems.allSatisfy { $0.code == .persistenceCorrupt })
        XCTAssertEqual(names(in: directory, "quarantine").count, garbageCount)
        XCTAssertEqual(names(in: directory, "archive"), [])
        XCTAssertEqual(names(in: directory, "orders").count, valid.count)
    }

    func testEmptyForeignFutureAndMisplacedFilesAreQuarantinedWithTypedErrors() async throws {
        let store = try makeStore(directory)
        let good = makeOrder("o-good")
        try await store.save(good)
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: OrderCoding.encode(makeOrder("o-future"))) as? [String: Any])
        json["schemaVersion"] = Order.currentSchemaVersion + 1
        try JSONSerialization.data(withJSONObject: json).write(to: fileURL(of: "o-future"))
        try Data().write(to: fileURL(of: "o-empty"))
        try Data(#"{"hello":"world"}"#.utf8).write(to: fileURL(of: "o-foreign"))
        try Data("[1,2,3]".utf8).write(to: fileURL(of: "o-array"))
        // A valid order under another order's name: copied or renamed by hand.
        try OrderCoding.encode(makeOrder("o-x")).write(to: fileURL(of: "o-y"))
        try Data("notes".utf8).write(to: url("orders", "notes.txt"))
        try Data("finder".utf8).write(to: url("orders", ".DS_Store"))

        let log = RecordingLogHandler()
        let relaunched = try makeStore(directory, logHandler: log)
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.orders, [good])
        XCTAssertEqual(report.problems.count, 6)
        XCTAssertTrue(report.problems.allSatisfy { $0.code == .persistenceCorrupt }, "\(report.problems)")
        let future = report.problems.first { $0.message.contains(FileNameCoding.fileName(for: "o-future")) }
        XCTAssertTrue(future?.message.contains("schema version") == true, "\(String(describing: future))")
        let misplaced = report.problems.first { $0.message.contains(FileNameCoding.fileName(for: "o-y")) }
        XCTAssertTrue(misplaced?.message.contains("does not match its file name") == true)
        XCTAssertEqual(names(in: directory, "orders"), [".DS_Store", FileNameCoding.fileName(for: "o-good")],
                       "hidden files that are not ours are left alone")
        XCTAssertEqual(names(in: directory, "quarantine").count, 6)
        XCTAssertEqual(log.records.filter { $0.level == .warning }.count, 6)
        let misplacedOrder = try await relaunched.order(id: "o-x")
        XCTAssertNil(misplacedOrder)
    }

    func testAnArchivedCopyLeftByAnInterruptedReopenLosesToTheOpenOrder() async throws {
        let store = try makeStore(directory)
        var order = makeOrder("o-1", transactionID: "t-1", status: .completed)
        try await store.save(order)
        let archivedBytes = try Data(contentsOf: fileURL(of: "o-1"))
        order.status = .revoked
        try await store.save(order)
        // As if the process died after writing the re-opened order, before deleting the archived copy.
        try archivedBytes.write(to: fileURL(of: "o-1", in: "archive"))

        let relaunched = try makeStore(directory)
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.orders, [order])
        XCTAssertEqual(report.problems, [])
        XCTAssertEqual(names(in: directory, "archive"), [])
        let byTransaction = try await relaunched.order(transactionID: "t-1")
        XCTAssertEqual(byTransaction?.status, .revoked)
    }

    func testTwoFilesOfOneOrderKeepTheNewerAndSetTheOtherAside() async throws {
        let id = String(repeating: "long-id/", count: 40)
        var old = makeOrder(id)
        var new = old
        new.status = .delivered
        new.updatedAt = old.updatedAt.addingTimeInterval(10)
        old.hint = "old"
        _ = try makeStore(directory)
        try OrderCoding.encode(new).write(to: url("orders", FileNameCoding.fileName(for: id, disambiguator: 0)))
        try OrderCoding.encode(old).write(to: url("orders", FileNameCoding.fileName(for: id, disambiguator: 1)))

        let relaunched = try makeStore(directory)
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.orders, [new])
        XCTAssertEqual(report.problems.map(\.code), [.persistenceCorrupt])
        XCTAssertEqual(names(in: directory, "orders"), [FileNameCoding.fileName(for: id)])
    }

    func testADamagedArchivedFileFoundOnLookupIsQuarantinedWithATypedError() async throws {
        let store = try makeStore(directory)
        try await store.save(makeOrder("o-1", transactionID: "t-1", status: .completed))
        try await store.archive(orderID: "o-1")
        try Data("{\"id\":".utf8).write(to: fileURL(of: "o-1", in: "archive"))

        await assertThrows(.persistenceCorrupt) { _ = try await store.order(transactionID: "t-1") }
        XCTAssertEqual(names(in: directory, "archive"), [])
        XCTAssertEqual(names(in: directory, "quarantine").count, 1)
        let after = try await store.order(id: "o-1")
        XCTAssertNil(after)
    }

    func testAnUnreadableFileIsReportedAndLeftInPlace() async throws {
        let store = try makeStore(directory)
        try await store.save(makeOrder("o-1"))
        try await store.save(makeOrder("o-2"))
        let fileSystem = FaultyFileSystem()
        fileSystem.fail(.read, errno: EIO, pathContains: FileNameCoding.fileName(for: "o-1"))

        let relaunched = try makeStore(directory, fileSystem: fileSystem)
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.orders.map(\.id), ["o-2"])
        XCTAssertEqual(report.problems.map(\.code), [.persistenceReadFailed])
        XCTAssertTrue(report.problems.first?.message.contains("read failed: Input/output error (5)") == true,
                      "\(report.problems)")
        XCTAssertEqual(names(in: directory, "orders").count, 2)
        XCTAssertEqual(names(in: directory, "quarantine"), [])
    }

    func testAFolderThatCannotBeListedFailsTheLoadUntilItCan() async throws {
        let store = try makeStore(directory)
        try await store.save(makeOrder("o-1"))
        let fileSystem = FaultyFileSystem()
        fileSystem.fail(.list, errno: EACCES)

        let relaunched = try makeStore(directory, fileSystem: fileSystem)
        let error = await assertThrows(.persistenceReadFailed) { _ = try await relaunched.loadOpenOrders() }
        XCTAssertTrue(error?.message.contains("Permission denied (13)") == true, "\(String(describing: error))")
        XCTAssertEqual((error?.underlying as? POSIXError)?.code, .EACCES)
        fileSystem.heal()
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.orders.map(\.id), ["o-1"])
    }
}
