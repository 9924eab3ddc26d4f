import XCTest
import PurchaseKit
import PurchaseKitSimulator
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The simulated disk keeps what a POSIX file system promises after a power loss, and no more.
final class SimulatedDiskTests: XCTestCase {
    private let bytes = Data((0..<64).map { UInt8(65 + $0 % 26) })

    // MARK: File contents

    func testFlushedBytesInAFlushedDirectorySurviveEveryPowerLoss() throws {
        for policy in policies(seeds: 0..<20) {
            let disk = try diskWithFolder("/d")
            try write(bytes, to: "/d/f", on: disk, flush: true)
            try disk.synchronizeDirectory(atPath: "/d")
            disk.powerLoss(policy)
            XCTAssertEqual(try disk.readFile(atPath: "/d/f"), bytes, "\(policy)")
        }
    }

    func testUnflushedBytesAreKeptLostOrTornAsTheSeedDraws() throws {
        var kinds: Set<String> = []
        for seed in UInt64(0)..<200 {
            let content = try unflushedWrite(.seeded(seed))
            XCTAssertEqual(content, try unflushedWrite(.seeded(seed)), "seed \(seed) replays")
            let kept = zip(content, bytes).prefix { $0 == $1 }.count
            switch (content.count, kept) {
            case (64, 64): kinds.insert("whole")
            case (0, _): kinds.insert("lost")
            case (let count, let prefix) where count == prefix: kinds.insert("prefix")
            case (64, _) where content.dropFirst(kept).allSatisfy({ $0 == 0 }): kinds.insert("zeros")
            case (64, _): kinds.insert("garbage")
            default: XCTFail("seed \(seed): \(content.count) bytes that are no prefix of what was written")
            }
        }
        XCTAssertEqual(kinds, ["whole", "lost", "prefix", "zeros", "garbage"])
        XCTAssertEqual(try unflushedWrite(.durableOnly), Data())
        XCTAssertEqual(try unflushedWrite(.everything), bytes)
    }

    func testFlushedBytesAreNeverTornByLaterWrites() throws {
        for policy in policies(seeds: 0..<100) {
            let disk = try diskWithFolder("/d")
            let descriptor = try disk.createFile(atPath: "/d/f", mode: 0o600)
            try disk.write(bytes.prefix(32), to: descriptor, path: "/d/f")
            try disk.synchronize(descriptor, path: "/d/f")
            try disk.write(bytes.dropFirst(32), to: descriptor, path: "/d/f")
            try disk.synchronizeDirectory(atPath: "/d")
            disk.powerLoss(policy)
            let content = try disk.readFile(atPath: "/d/f")
            XCTAssertEqual(content.prefix(32), bytes.prefix(32), "\(policy)")
            XCTAssertTrue((32...64).contains(content.count), "\(policy): \(content.count) bytes")
        }
    }

    func testWritesIntoReservedRoomOverwriteItsZerosAndKeepWhatWasFlushed() throws {
        for policy in policies(seeds: 0..<100) {
            let disk = try diskWithFolder("/d")
            let descriptor = try disk.createFile(atPath: "/d/f", mode: 0o600)
            try disk.preallocate(descriptor, length: 128, path: "/d/f")
            try disk.write(bytes.prefix(32), to: descriptor, path: "/d/f")
            XCTAssertEqual(try disk.readFile(atPath: "/d/f"), bytes.prefix(32) + Data(count: 96), "the write lands at the start")
            try disk.synchronizeData(descriptor, path: "/d/f")
            try disk.synchronizeDirectory(atPath: "/d")
            try disk.write(bytes.dropFirst(32), to: descriptor, path: "/d/f")
            XCTAssertEqual(try disk.readFile(atPath: "/d/f"), bytes + Data(count: 64))
            disk.powerLoss(policy)
            let content = try disk.readFile(atPath: "/d/f")
            XCTAssertEqual(content.prefix(32), bytes.prefix(32), "\(policy): flushed bytes stay")
            if policy == .durableOnly { XCTAssertEqual(content, bytes.prefix(32) + Data(count: 96)) }
            if policy == .everything { XCTAssertEqual(content, bytes + Data(count: 64)) }
        }
    }

    // MARK: Directory entries

    func testAnUnflushedCreationRenameAndDeletionAreUndoneUntilTheDirectoryIsFlushed() throws {
        for flushed in [false, true] {
            for policy in policies(seeds: 0..<20) {
                let disk = try diskWithFolder("/d")
                try write(Data("v1".utf8), to: "/d/order", on: disk, flush: true)
                try write(Data("gone".utf8), to: "/d/gone", on: disk, flush: true)
                try disk.synchronizeDirectory(atPath: "/d")
                try write(Data("v2".utf8), to: "/d/tmp", on: disk, flush: true)
                try disk.rename("/d/tmp", to: "/d/order")
                try write(Data("new".utf8), to: "/d/new", on: disk, flush: true)
                XCTAssertTrue(try disk.removeFile(atPath: "/d/gone"))
                XCTAssertEqual(try disk.contentsOfDirectory(atPath: "/d"), ["new", "order"], "reads see the live state")
                if flushed { try disk.synchronizeDirectory(atPath: "/d") }
                disk.powerLoss(policy)
                let names = try disk.contentsOfDirectory(atPath: "/d")
                let order = try disk.readFile(atPath: "/d/order")
                if flushed || policy == .everything {
                    XCTAssertEqual(names, ["new", "order"], "\(policy)")
                    XCTAssertEqual(order, Data("v2".utf8), "\(policy)")
                } else if policy == .durableOnly {
                    XCTAssertEqual(names, ["gone", "order"])
                    XCTAssertEqual(order, Data("v1".utf8))
                } else {
                    XCTAssertTrue([Data("v1".utf8), Data("v2".utf8)].contains(order), "\(policy): the rename is whole or undone")
                }
            }
        }
    }

    func testARenameBetweenDirectoriesNeverLosesItsFile() throws {
        var seen: Set<[Bool]> = []
        for flushedFolder in [nil, "/b", "/a"] {
            for policy in policies(seeds: 0..<40) {
                let disk = try diskWithFolder("/a")
                _ = try disk.makeDirectory(atPath: "/b", mode: 0o700)
                try disk.synchronizeDirectory(atPath: "/")
                try write(bytes, to: "/a/f", on: disk, flush: true)
                try disk.synchronizeDirectory(atPath: "/a")
                try disk.rename("/a/f", to: "/b/f")
                if let flushedFolder { try disk.synchronizeDirectory(atPath: flushedFolder) }
                disk.powerLoss(policy)
                let place = [try disk.contentsOfDirectory(atPath: "/a") == ["f"], try disk.contentsOfDirectory(atPath: "/b") == ["f"]]
                XCTAssertNotEqual(place, [false, false], "\(policy), flushed \(flushedFolder ?? "none"): the file is lost")
                if flushedFolder != nil { XCTAssertTrue(place[1], "\(policy): a flushed destination keeps the file") }
                if flushedFolder == "/a" { XCTAssertEqual(place, [false, true], "\(policy): a flushed source is gone for good") }
                if flushedFolder == nil { seen.insert(place) }
            }
        }
        XCTAssertEqual(seen, [[true, false], [false, true], [true, true]], "undone, done, or under both names")
    }

    func testANewDirectoryNeedsItsParentFlushed() throws {
        for flushParents in [false, true] {
            let disk = SimulatedDisk()
            XCTAssertTrue(try disk.makeDirectory(atPath: "/x/y", mode: 0o700))
            XCTAssertFalse(try disk.makeDirectory(atPath: "/x/y", mode: 0o700), "an existing directory is not created again")
            try write(bytes, to: "/x/y/f", on: disk, flush: true)
            try disk.synchronizeDirectory(atPath: "/x/y")
            if flushParents {
                try disk.synchronizeDirectory(atPath: "/x")
                try disk.synchronizeDirectory(atPath: "/")
            }
            disk.powerLoss(.durableOnly)
            if flushParents {
                XCTAssertEqual(try disk.readFile(atPath: "/x/y/f"), bytes)
            } else {
                XCTAssertEqual(failure { () throws(FileSystemError) in try disk.contentsOfDirectory(atPath: "/x") }, ENOENT)
            }
        }
    }

    func testTheSameCallsAndSeedGiveTheSameDisk() throws {
        var distinct: Set<[String: Data]> = []
        for seed in UInt64(0)..<30 {
            let first = try survivorsOfManyChanges(seed)
            XCTAssertEqual(first, try survivorsOfManyChanges(seed), "seed \(seed) replays")
            distinct.insert(first)
        }
        XCTAssertGreaterThan(distinct.count, 10, "seeds draw different disks")
    }

    /// Every file left after creations, flushed and unflushed writes, renames and a deletion, then a power loss.
    private func survivorsOfManyChanges(_ seed: UInt64) throws -> [String: Data] {
        let disk = try diskWithFolder("/d")
        _ = try disk.makeDirectory(atPath: "/e", mode: 0o700)
        for index in 0..<6 {
            try write(bytes.prefix(10 * index + 4), to: "/d/f\(index)", on: disk, flush: index.isMultiple(of: 2))
        }
        try disk.rename("/d/f0", to: "/e/f0")
        try disk.rename("/d/f1", to: "/d/f2")
        XCTAssertTrue(try disk.removeFile(atPath: "/d/f3"))
        disk.powerLoss(.seeded(seed))
        var files: [String: Data] = [:]
        for folder in ["/d", "/e"] {
            for name in (try? disk.contentsOfDirectory(atPath: folder)) ?? [] {
                files[folder + "/" + name] = try disk.readFile(atPath: folder + "/" + name)
            }
        }
        return files
    }

    // MARK: Crash points

    func testACrashBeforeACallPreventsItAndEveryLaterCallFails() throws {
        let disk = try diskWithFolder("/d")
        disk.crash(at: .init(call: 2, timing: .before))
        let descriptor = try disk.createFile(atPath: "/d/f", mode: 0o600)
        XCTAssertEqual(failure { () throws(FileSystemError) in try disk.write(self.bytes, to: descriptor, path: "/d/f") }, EIO)
        XCTAssertTrue(disk.isDown)
        XCTAssertEqual(failure { () throws(FileSystemError) in try disk.contentsOfDirectory(atPath: "/d") }, EIO)
        XCTAssertEqual(disk.calls.map(\.operation), [.makeDirectory, .synchronizeDirectory, .create, .write],
                       "the calls of a dead process are not counted")
        disk.powerLoss(.everything)
        XCTAssertFalse(disk.isDown)
        XCTAssertEqual(disk.calls, [])
        XCTAssertEqual(try disk.readFile(atPath: "/d/f"), Data(), "the write never happened")
        XCTAssertEqual(failure { () throws(FileSystemError) in try disk.close(descriptor, path: "/d/f") }, EBADF,
                       "descriptors die with the process")
    }

    func testACrashAfterACallKeepsItsEffectButNotItsAnswer() throws {
        let disk = try diskWithFolder("/d")
        try write(bytes, to: "/d/tmp", on: disk, flush: true)
        disk.crash(at: .init(call: 1, timing: .after))
        XCTAssertEqual(failure { () throws(FileSystemError) in try disk.rename("/d/tmp", to: "/d/f") }, EIO)
        XCTAssertTrue(disk.isDown)
        disk.powerLoss(.everything)
        XCTAssertEqual(try disk.contentsOfDirectory(atPath: "/d"), ["f"])
    }

    func testCallsFailAsPOSIXCallsDo() throws {
        let disk = try diskWithFolder("/d")
        try write(bytes, to: "/d/f", on: disk, flush: false)
        XCTAssertEqual(failure { () throws(FileSystemError) in try disk.createFile(atPath: "/d/f", mode: 0o600) }, EEXIST)
        XCTAssertEqual(failure { () throws(FileSystemError) in try disk.createFile(atPath: "/missing/f", mode: 0o600) }, ENOENT)
        XCTAssertEqual(failure { () throws(FileSystemError) in try disk.readFile(atPath: "/d/missing") }, ENOENT)
        XCTAssertEqual(failure { () throws(FileSystemError) in try disk.readFile(atPath: "/d") }, EISDIR)
        XCTAssertEqual(failure { () throws(FileSystemError) in try disk.contentsOfDirectory(atPath: "/d/f") }, ENOTDIR)
        XCTAssertEqual(failure { () throws(FileSystemError) in try disk.makeDirectory(atPath: "/d/f", mode: 0o700) }, ENOTDIR)
        XCTAssertEqual(failure { () throws(FileSystemError) in try disk.rename("/d/missing", to: "/d/g") }, ENOENT)
        XCTAssertEqual(failure { () throws(FileSystemError) in try disk.write(self.bytes, to: 99, path: "/d/f") }, EBADF)
        XCTAssertFalse(try disk.removeFile(atPath: "/d/missing"))
        let error = try XCTUnwrap(failureError { () throws(FileSystemError) in try disk.readFile(atPath: "/d/missing") })
        XCTAssertEqual(error.operation, .read)
        XCTAssertEqual(error.path, "/d/missing")
    }

    // MARK: Helpers

    private func policies(seeds: Range<UInt64>) -> [SimulatedDisk.PowerLoss] {
        [.durableOnly, .everything] + seeds.map { .seeded($0) }
    }

    /// A disk with one durable, empty folder.
    private func diskWithFolder(_ path: String) throws -> SimulatedDisk {
        let disk = SimulatedDisk()
        _ = try disk.makeDirectory(atPath: path, mode: 0o700)
        try disk.synchronizeDirectory(atPath: "/")
        return disk
    }

    private func write(_ data: Data, to path: String, on disk: SimulatedDisk, flush: Bool) throws {
        let descriptor = try disk.createFile(atPath: path, mode: 0o600)
        try disk.write(data, to: descriptor, path: path)
        if flush { try disk.synchronize(descriptor, path: path) }
        try disk.close(descriptor, path: path)
    }

    /// What a durable file written but never flushed holds after a power loss.
    private func unflushedWrite(_ policy: SimulatedDisk.PowerLoss) throws -> Data {
        let disk = try diskWithFolder("/d")
        try write(bytes, to: "/d/f", on: disk, flush: false)
        try disk.synchronizeDirectory(atPath: "/d")
        disk.powerLoss(policy)
        return try disk.readFile(atPath: "/d/f")
    }

    private func failureError<T>(_ body: () throws(FileSystemError) -> T) -> FileSystemError? {
        do throws(FileSystemError) {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    private func failure<T>(_ body: () throws(FileSystemError) -> T) -> Int32? { failureError(body)?.errorNumber }
}
