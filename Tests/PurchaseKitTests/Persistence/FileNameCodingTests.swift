import Foundation
import XCTest
@testable import PurchaseKit

/// Ids from a server are untrusted; every one must map to a safe file name and back.
let hostileIDs: [String] = [
    "", "/", "//", ".", "..", "../../etc/passwd", "a/b", "a\\b", "nul\0byte", "\0", "%", "%2f", "order-x.json",
    ".tmp-evil", "hash-0000000000000000", "CON", "Abc", "aBC", "abc", "ABC", "Ǆ", "ǅ", "ǆ",
    "🧾💸", "e\u{301}", "é", "مرحبا", "\u{202E}fdp.exe", "\u{FEFF}bom", "tab\tnew\nline", " space ",
    String(repeating: "x", count: 40), String(repeating: "X", count: 40), String(repeating: "é", count: 30),
    String(repeating: "a", count: 10_000), String(repeating: "/..", count: 3_334), String(repeating: "🧾", count: 2_500),
    String(repeating: "a", count: 9_999) + "b",
]

final class FileNameCodingTests: XCTestCase {
    func testEveryHostileIDGetsASafeNameThatFitsOnlyItself() {
        var seen: [String: String] = [:]
        for id in hostileIDs {
            let name = FileNameCoding.fileName(for: id)
            XCTAssertLessThanOrEqual(name.utf8.count, 143, id.debugDescription)
            XCTAssertFalse(name.hasPrefix("."), name)
            XCTAssertTrue(name.hasSuffix(".json"), name)
            XCTAssertTrue(name.utf8.allSatisfy { byte in
                (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte) || [0x2d, 0x5f, 0x25, 0x2e].contains(byte)
            }, "only lower-case ASCII, digits, -, _, %, .: \(name)")
            XCTAssertTrue(FileNameCoding.name(name, fits: id), id.debugDescription)
            XCTAssertNotNil(FileNameCoding.parse(name), name)
            XCTAssertFalse(FileNameCoding.isTemporary(name))
            // Names are compared case-insensitively here, as an Apple file system would.
            let key = name.lowercased()
            if let other = seen[key], !Array(other.utf8).elementsEqual(id.utf8) {
                XCTFail("\(id.debugDescription) and \(other.debugDescription) share \(name)")
            }
            seen[key] = id
        }
    }

    func testReadableNamesDecodeToTheExactBytesOfTheID() {
        for id in hostileIDs where !FileNameCoding.needsHash(id) {
            guard case .readable(let bytes) = FileNameCoding.parse(FileNameCoding.fileName(for: id)) else {
                XCTFail("\(id.debugDescription) should be readable")
                continue
            }
            XCTAssertEqual(bytes, Array(id.utf8))
        }
        XCTAssertEqual(FileNameCoding.fileName(for: "o-123_abc"), "order-o-123_abc.json")
        XCTAssertEqual(FileNameCoding.fileName(for: "../A"), "order-%2e%2e%2f%41.json")
        XCTAssertEqual(FileNameCoding.fileName(for: ""), "order-.json")
    }

    func testCanonicallyEquivalentIDsStillGetDifferentNames() {
        // Swift calls these equal, but their bytes differ; each name fits only its own bytes.
        XCTAssertEqual("e\u{301}", "é")
        XCTAssertNotEqual(FileNameCoding.fileName(for: "e\u{301}"), FileNameCoding.fileName(for: "é"))
        XCTAssertFalse(FileNameCoding.name(FileNameCoding.fileName(for: "e\u{301}"), fits: "é"))
    }

    func testLongIDsAreHashedAndStillNeverFitAnotherID() {
        let long = String(repeating: "a", count: 10_000)
        let name = FileNameCoding.fileName(for: long)
        XCTAssertTrue(name.hasPrefix("hash-"), name)
        XCTAssertEqual(FileNameCoding.parse(name), .hashed(FileNameCoding.fnv1a64(long.utf8), disambiguator: 0))
        XCTAssertFalse(FileNameCoding.name(name, fits: long + "b"))
        XCTAssertFalse(FileNameCoding.name(name, fits: "a"), "a short id never lives under a hashed name")
        XCTAssertEqual(FileNameCoding.fileName(for: long, disambiguator: 2), name.replacingOccurrences(of: ".json", with: "-2.json"))
        XCTAssertTrue(FileNameCoding.name(FileNameCoding.fileName(for: long, disambiguator: 2), fits: long))
        // The published FNV-1a 64 test vectors.
        XCTAssertEqual(FileNameCoding.fnv1a64("".utf8), 0xcbf2_9ce4_8422_2325)
        XCTAssertEqual(FileNameCoding.fnv1a64("a".utf8), 0xaf63_dc4c_8601_ec8c)
        XCTAssertEqual(FileNameCoding.fnv1a64("foobar".utf8), 0x8594_4171_f739_67e8)
    }

    func testNamesThisCodingDoesNotWriteAreRejected() {
        for name in ["order-%61.json", "order-%2E.json", "order-A.json", "order-%2.json", "order-%zz.json", "order-a.txt",
                     "order-a", "hash-123.json", "hash-000000000000000g.json", "hash-0000000000000000-0.json",
                     "hash-0000000000000000-01.json", "hash-0000000000000000--1.json", "hash-0000000000000000-1-2.json",
                     "notes.txt", ".tmp-x.partial", "order-" + String(repeating: "a", count: 121) + ".json"] {
            XCTAssertNil(FileNameCoding.parse(name), name)
        }
    }

    func testACollidingHashGetsTheNextFreeName() {
        // Real FNV collisions are hard to find, so occupy the name by hand.
        let first = String(repeating: "first/", count: 30)
        let second = String(repeating: "second/", count: 30)
        var index = FileOrderIndex()
        let occupied = FileNameCoding.fileName(for: second)
        index.insert(makeOrder(first), fileName: occupied, place: .open)
        XCTAssertEqual(index.freeFileName(for: second), FileNameCoding.fileName(for: second, disambiguator: 1))
        index.insert(makeOrder("other"), fileName: FileNameCoding.fileName(for: second, disambiguator: 1), place: .archive)
        XCTAssertEqual(index.freeFileName(for: second), FileNameCoding.fileName(for: second, disambiguator: 2))
        XCTAssertEqual(index.freeFileName(for: first), FileNameCoding.fileName(for: first))
    }
}
