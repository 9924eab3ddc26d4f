import Foundation
import XCTest
@testable import PurchaseKit

/// The real file system's reservation: room ahead of a file's end, filled
/// with zeros, the file's own bytes and offset untouched.
final class POSIXFileSystemReservationTests: XCTestCase {
    func testAReservationFillsPastTheEndWithZerosAndLeavesTheBytesAndTheOffsetAlone() throws {
        let directory = try makeTemporaryDirectory(self)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("reserved.log").path
        let fileSystem = POSIXFileSystem()
        let descriptor = try fileSystem.createFile(atPath: path, mode: 0o600)
        try fileSystem.write(Data("first".utf8), to: descriptor, path: path)
        // More than one chunk of zeros, and not a multiple of one.
        try fileSystem.preallocate(descriptor, length: 150_000, path: path)
        try fileSystem.write(Data("second".utf8), to: descriptor, path: path)
        // A reservation smaller than the file changes nothing.
        try fileSystem.preallocate(descriptor, length: 100, path: path)
        try fileSystem.close(descriptor, path: path)

        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let written = Data("firstsecond".utf8)
        XCTAssertEqual(bytes.count, 150_000, "the file reaches the reserved length")
        XCTAssertEqual(bytes.prefix(written.count), written, "the next write went on where the last one ended")
        XCTAssertTrue(bytes.dropFirst(written.count).allSatisfy { $0 == 0 }, "the rest reads as zeros")
    }

    func testAReservationOnABadDescriptorFailsWithATypedError() throws {
        #if os(Linux)
        // Not a closed descriptor: its number may already name another open file.
        XCTAssertThrowsError(try POSIXFileSystem().preallocate(-1, length: 4096, path: "/nowhere")) { error in
            let failure = error as? FileSystemError
            XCTAssertEqual(failure?.operation, .preallocate)
            XCTAssertEqual(failure?.errorNumber, EBADF)
        }
        #endif
    }
}
