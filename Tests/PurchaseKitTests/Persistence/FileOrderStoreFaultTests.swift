import Foundation
import XCTest
@testable import PurchaseKit

/// A failing call during a save, archive or removal is a typed error naming the
/// call and errno, and the previous version of the data is intact.
final class FileOrderStoreFaultTests: XCTestCase {
    private var directory: URL!
    private let fileSystem = FaultyFileSystem()

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self)
    }

    /// Saves version 1, makes `operation` fail, tries to save version 2, and
    /// checks the error, then that version 1 is what the store and the disk hold.
    private func assertFailedSaveKeepsPreviousVersion(
        _ operation: FileSystemError.Operation, errno errorNumber: Int32, expecting text: String,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let store = try makeStore(directory, fileSystem: fileSystem)
        let first = makeOrder("o-1", transactionID: "t-1")
        try await store.save(first)
        var second = first
        second.status = .delivered
        second.transaction?.id = "t-2"

        fileSystem.fail(operation, errno: errorNumber)
        let error = await assertThrows(.persistenceWriteFailed, file: file, line: line) { try await store.save(second) }
        fileSystem.heal()
        XCTAssertTrue(error?.message.contains(text) == true, "\(String(describing: error))", file: file, line: line)
        XCTAssertEqual((error?.underlying as? POSIXError)?.code.rawValue, errorNumber, file: file, line: line)
        XCTAssertEqual(error?.orderID, "o-1", file: file, line: line)

        let inMemory = try await store.order(id: "o-1")
        XCTAssertEqual(inMemory, first, file: file, line: line)
        let oldLink = try await store.order(transactionID: "t-1")
        XCTAssertEqual(oldLink, first, file: file, line: line)
        XCTAssertEqual(names(in: directory, "orders"), [FileNameCoding.fileName(for: "o-1")],
                       "no temporary file is left", file: file, line: line)
        let relaunched = try makeStore(directory)
        let onDisk = try await relaunched.loadOpenOrders()
        XCTAssertEqual(onDisk.orders, [first], file: file, line: line)

        // Once the fault is gone the same save works.
        try await store.save(second)
        let saved = try await makeStore(directory).loadOpenOrders().orders
        XCTAssertEqual(saved, [second], file: file, line: line)
    }

    func testAFailedFsyncKeepsThePreviousVersion() async throws {
        try await assertFailedSaveKeepsPreviousVersion(.synchronize, errno: EIO, expecting: "fsync failed: Input/output error (5)")
    }

    func testAFailedRenameKeepsThePreviousVersion() async throws {
        try await assertFailedSaveKeepsPreviousVersion(.rename, errno: EIO, expecting: "rename failed: Input/output error (5)")
    }

    func testAFailedWriteKeepsThePreviousVersion() async throws {
        try await assertFailedSaveKeepsPreviousVersion(.write, errno: ENOSPC, expecting: "write failed: No space left on device (28)")
    }

    func testAFailedCloseKeepsThePreviousVersion() async throws {
        try await assertFailedSaveKeepsPreviousVersion(.close, errno: EIO, expecting: "close failed: Input/output error (5)")
    }

    func testAFailedCreateOfTheTemporaryFileKeepsThePreviousVersion() async throws {
        try await assertFailedSaveKeepsPreviousVersion(.create, errno: EDQUOT, expecting: "open failed")
    }

    func testAFailedDirectoryFsyncIsReportedAndTheFileIsWholeAndCurrent() async throws {
        let store = try makeStore(directory, fileSystem: fileSystem)
        let first = makeOrder("o-1", transactionID: "t-1")
        try await store.save(first)
        var second = first
        second.status = .delivered

        fileSystem.fail(.synchronizeDirectory, errno: EIO, pathContains: "/orders")
        let error = await assertThrows(.persistenceWriteFailed) { try await store.save(second) }
        fileSystem.heal()
        XCTAssertTrue(error?.message.contains("fsync of the directory failed: Input/output error (5)") == true,
                      "\(String(describing: error))")
        XCTAssertTrue(error?.advice.contains("Save the order again") == true)
        // The rename happened: the store and the disk agree on the new, complete version.
        let inMemory = try await store.order(id: "o-1")
        XCTAssertEqual(inMemory, second)
        XCTAssertEqual(names(in: directory, "orders"), [FileNameCoding.fileName(for: "o-1")])
        let onDisk = try await makeStore(directory).loadOpenOrders()
        XCTAssertEqual(onDisk.orders, [second])
        XCTAssertEqual(onDisk.problems, [])
    }

    func testAFailedFirstSaveLeavesNoOrderBehind() async throws {
        let store = try makeStore(directory, fileSystem: fileSystem)
        fileSystem.fail(.synchronize, errno: EIO)
        await assertThrows(.persistenceWriteFailed) { try await store.save(makeOrder("o-new", transactionID: "t-new")) }
        let byID = try await store.order(id: "o-new")
        let byTransaction = try await store.order(transactionID: "t-new")
        XCTAssertNil(byID)
        XCTAssertNil(byTransaction)
        XCTAssertEqual(names(in: directory, "orders"), [])
    }

    func testAFailedArchiveRenameLeavesTheOrderOpen() async throws {
        let store = try makeStore(directory, fileSystem: fileSystem)
        let order = makeOrder("o-1", status: .completed)
        try await store.save(order)
        fileSystem.fail(.rename, errno: EROFS)
        let error = await assertThrows(.persistenceWriteFailed) { try await store.archive(orderID: "o-1") }
        fileSystem.heal()
        XCTAssertTrue(error?.message.contains("rename failed: Read-only file system (30)") == true, "\(String(describing: error))")
        let open = try await store.openOrders(forUser: "user-1")
        XCTAssertEqual(open, [order])
        let afterFailure = try await makeStore(directory).loadOpenOrders().orders
        XCTAssertEqual(afterFailure, [order])
        try await store.archive(orderID: "o-1")
        let afterSuccess = try await makeStore(directory).loadOpenOrders().orders
        XCTAssertEqual(afterSuccess, [])
    }

    func testAFailedDirectoryFsyncAfterArchivingIsReported() async throws {
        let store = try makeStore(directory, fileSystem: fileSystem)
        try await store.save(makeOrder("o-1", status: .completed))
        fileSystem.fail(.synchronizeDirectory, errno: EIO, pathContains: "/archive")
        let error = await assertThrows(.persistenceWriteFailed) { try await store.archive(orderID: "o-1") }
        fileSystem.heal()
        XCTAssertTrue(error?.message.contains("may not survive a power loss") == true, "\(String(describing: error))")
        // The move happened; memory follows the disk.
        let open = try await store.loadOpenOrders().orders
        XCTAssertEqual(open, [])
        XCTAssertEqual(names(in: directory, "archive"), [FileNameCoding.fileName(for: "o-1")])
    }

    func testAFailedDeletionLeavesTheOrder() async throws {
        let store = try makeStore(directory, fileSystem: fileSystem)
        let order = makeOrder("o-1", transactionID: "t-1")
        try await store.save(order)
        fileSystem.fail(.remove, errno: EACCES)
        let error = await assertThrows(.persistenceWriteFailed) { try await store.remove(orderID: "o-1") }
        fileSystem.heal()
        XCTAssertTrue(error?.message.contains("unlink failed: Permission denied (13)") == true, "\(String(describing: error))")
        let inMemory = try await store.order(transactionID: "t-1")
        XCTAssertEqual(inMemory, order)
        let onDisk = try await makeStore(directory).loadOpenOrders().orders
        XCTAssertEqual(onDisk, [order])
    }

    func testFoldersThatCannotBeCreatedFailTheInitializer() throws {
        fileSystem.fail(.makeDirectory, errno: EACCES)
        XCTAssertThrowsError(try makeStore(directory, fileSystem: fileSystem)) { error in
            XCTAssertEqual((error as? PurchaseKitError)?.code, .persistenceWriteFailed)
            XCTAssertTrue("\(error)".contains("mkdir failed: Permission denied (13)"), "\(error)")
        }
    }
}
