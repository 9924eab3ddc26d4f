import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Entries that are not order documents — a FIFO, a socket, symbolic links, a
/// directory, an oversized file — are set aside unread with a typed problem,
/// and nothing hangs or reads without bound. (A FIFO opened the usual way
/// blocks until a writer comes; `/dev/zero` never ends.)
final class FileOrderStoreUnusableEntryTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self)
    }

    private func path(_ folder: String, _ name: String) -> String {
        directory.appendingPathComponent(folder).appendingPathComponent(name).path
    }

    private func fileName(_ id: String) -> String { FileNameCoding.fileName(for: id) }

    func testEveryKindOfUnusableEntryIsSetAsideWithATypedProblemAndTheOrdersLoad() async throws {
        let store = try makeStore(directory)
        let open = makeOrder("o-open", transactionID: "t-open")
        let archived = makeOrder("o-archived", transactionID: "t-archived", status: .completed)
        try await store.save(open)
        try await store.save(archived)
        try await store.archive(orderID: "o-archived")

        // A valid order document outside the store, reached through a link.
        let outside = directory.deletingLastPathComponent().appendingPathComponent("elsewhere.json")
        let outsideBytes = try OrderCoding.encode(makeOrder("o-linked", transactionID: "t-linked"))
        try outsideBytes.write(to: outside)
        try makeFIFO(path("orders", fileName("o-fifo")))
        try makeFIFO(path("archive", fileName("o-archived-fifo")))
        try makeSymbolicLink(path("orders", fileName("o-zero")), to: "/dev/zero")
        try makeSymbolicLink(path("orders", fileName("o-linked")), to: outside.path)
        // A socket's path must fit in `sun_path` (about 100 bytes); long temporary folders skip it.
        let hasSocket = (try? makeSocket(path("orders", fileName("o-socket")))) != nil
        try FileManager.default.createDirectory(atPath: path("orders", fileName("o-folder")), withIntermediateDirectories: false)
        try Data("inside".utf8).write(to: URL(fileURLWithPath: path("orders", fileName("o-folder")) + "/note"))
        // A real order, padded past the limit.
        var big = makeOrder("o-big")
        big.metadata["padding"] = String(repeating: "x", count: 1024 * 1024)
        let bigBytes = try OrderCoding.encode(big)
        try bigBytes.write(to: URL(fileURLWithPath: path("orders", fileName("o-big"))))

        let relaunched = try makeStore(directory)
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.orders, [open])
        var expected = ["o-fifo", "o-archived-fifo", "o-zero", "o-linked", "o-folder", "o-big"]
        if hasSocket { expected.append("o-socket") }
        let byFile = Dictionary(uniqueKeysWithValues: report.problems.map { problem in
            (expected.first { problem.message.contains("/\(fileName($0))'") } ?? problem.message, problem)
        })
        XCTAssertEqual(Set(byFile.keys), Set(expected), "\(report.problems)")
        XCTAssertTrue(report.problems.allSatisfy { $0.code == .persistenceUnusableFile }, "\(report.problems)")
        let kinds = ["o-fifo": "a FIFO", "o-archived-fifo": "a FIFO", "o-zero": "a symbolic link", "o-linked": "a symbolic link",
                     "o-socket": "a socket", "o-folder": "a directory", "o-big": "above the limit of 1048576 bytes"]
        for (id, kind) in kinds where expected.contains(id) {
            let message = byFile[id]?.message ?? ""
            XCTAssertTrue(message.contains(kind), "\(id): \(message)")
            XCTAssertTrue(message.contains("moved to quarantine/"), "\(id): \(message)")
        }

        // Everything unusable was moved aside as it was; the orders stayed; the link's target is untouched.
        XCTAssertEqual(names(in: directory, "orders"), [fileName("o-open")])
        XCTAssertEqual(names(in: directory, "archive"), [fileName("o-archived")])
        let quarantined = names(in: directory, "quarantine")
        XCTAssertEqual(quarantined.count, expected.count)
        let fifo = try XCTUnwrap(quarantined.first { $0.hasSuffix("-orders-" + fileName("o-fifo")) })
        XCTAssertEqual(fileType(path("quarantine", fifo)), S_IFIFO)
        let link = try XCTUnwrap(quarantined.first { $0.hasSuffix("-orders-" + fileName("o-linked")) })
        XCTAssertEqual(fileType(path("quarantine", link)), S_IFLNK)
        XCTAssertEqual(try Data(contentsOf: outside), outsideBytes)
        let linked = try await relaunched.order(id: "o-linked")
        XCTAssertNil(linked, "a link is never followed, even to a valid order")
        let archivedOrder = try await relaunched.order(transactionID: "t-archived")
        XCTAssertEqual(archivedOrder, archived)

        let again = try await makeStore(directory).loadOpenOrders()
        XCTAssertEqual(again.problems, [], "set aside once, not reported at every launch")
    }

    func testAnArchivedFileSwappedForAFIFOIsReportedOnLookupWithoutBlocking() async throws {
        let store = try makeStore(directory)
        try await store.save(makeOrder("o-1", transactionID: "t-1", status: .completed))
        try await store.archive(orderID: "o-1")
        _ = try await store.loadOpenOrders()
        try FileManager.default.removeItem(atPath: path("archive", fileName("o-1")))
        try makeFIFO(path("archive", fileName("o-1")))

        let error = await assertThrows(.persistenceUnusableFile) { _ = try await store.order(transactionID: "t-1") }
        XCTAssertTrue(error?.message.contains("a FIFO") == true, "\(String(describing: error))")
        XCTAssertEqual(names(in: directory, "archive"), [])
        let after = try await store.order(id: "o-1")
        XCTAssertNil(after)
    }

    func testTheLimitIsConfigurableAndASaveAboveItIsRefusedSoNothingUnreadableIsWritten() async throws {
        var configuration = FileOrderStore.Configuration.testing(POSIXFileSystem(), clock: ManualClock(start: testEpoch))
        configuration.maximumFileSize = 2_000
        let store = try FileOrderStore(directory: directory, configuration: configuration)
        let small = makeOrder("o-small", transactionID: "t-small")
        try await store.save(small)
        var large = makeOrder("o-large")
        large.metadata["note"] = String(repeating: "y", count: 2_000)
        let error = await assertThrows(.persistenceWriteFailed) { try await store.save(large) }
        XCTAssertTrue(error?.message.contains("limit of 2000") == true, "\(String(describing: error))")
        XCTAssertEqual(names(in: directory, "orders"), [fileName("o-small")])

        // A file that fits the default limit but not this one is set aside by this store.
        try OrderCoding.encode(large).write(to: URL(fileURLWithPath: path("orders", fileName("o-large"))))
        let relaunched = try FileOrderStore(directory: directory, configuration: configuration)
        let report = try await relaunched.loadOpenOrders()
        XCTAssertEqual(report.orders, [small])
        XCTAssertEqual(report.problems.map(\.code), [.persistenceUnusableFile])
    }

    func testTheFileSystemReadsExactlyUpToTheLimitAndNeverFollowsALink() throws {
        let fileSystem = POSIXFileSystem()
        let folder = directory.deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/bytes"
        try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try fileSystem.readRegularFile(atPath: file, maximumSize: 100), .data(Data(repeating: 7, count: 100)))
        XCTAssertEqual(try fileSystem.readRegularFile(atPath: file, maximumSize: 99), .unusable(.tooLarge(size: 100, limit: 99)))
        try makeSymbolicLink(folder + "/link", to: file)
        XCTAssertEqual(try fileSystem.readRegularFile(atPath: folder + "/link", maximumSize: 100), .unusable(.symbolicLink))
        XCTAssertEqual(try fileSystem.readRegularFile(atPath: "/dev/zero", maximumSize: 100), .unusable(.device))
        XCTAssertThrowsError(try fileSystem.readRegularFile(atPath: folder + "/missing", maximumSize: 100)) { error in
            XCTAssertEqual((error as? FileSystemError)?.errorNumber, ENOENT)
        }
    }
}

/// The `S_IFMT` bits of an entry, without following a link.
func fileType(_ path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & S_IFMT
}

func makeFIFO(_ path: String) throws {
    guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
}

func makeSymbolicLink(_ path: String, to target: String) throws {
    guard symlink(target, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
}

/// A Unix-domain socket bound at `path`; the socket itself is closed, the entry stays.
func makeSocket(_ path: String) throws {
    #if canImport(Glibc) || canImport(Musl)
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else { throw POSIXError(.ENAMETOOLONG) }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        buffer.copyBytes(from: bytes)
        buffer[bytes.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
}
