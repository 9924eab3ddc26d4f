import XCTest
@testable import PurchaseKitSimulator

/// The trace's fingerprint: a function of the lines alone, and of every byte.
final class TraceFingerprintTests: XCTestCase {
    private func fingerprint(_ lines: [String]) -> UInt64 {
        var print = TraceFingerprint()
        for line in lines { print.add(line) }
        return print.value
    }

    func testTheSameLinesGiveTheSameFingerprint() {
        let lines = ["1 purchase sim.coins x1 for user-1: success | orders[order-1:user-1:completed:2000000001f]", "support", ""]
        XCTAssertEqual(fingerprint(lines), fingerprint(lines))
        XCTAssertEqual(TraceFingerprint().hex.count, 16)
    }

    func testEveryByteCountsWhereverItSits() {
        // Past the eight-byte words as well as in the tail, and in every byte of a word.
        let line = "orders[order-10:user-2:failed:- order-11:user-2:completed:2000000005f]"
        let base = fingerprint([line])
        var changed: Set<UInt64> = [base]
        for index in line.utf8.indices {
            var bytes = Array(line.utf8)
            let offset = line.utf8.distance(from: line.utf8.startIndex, to: index)
            bytes[offset] ^= 0x01
            changed.insert(fingerprint([String(decoding: bytes, as: UTF8.self)]))
        }
        XCTAssertEqual(changed.count, line.utf8.count + 1, "a one-bit change anywhere changes the fingerprint")
    }

    func testLinesAreKeptApart() {
        XCTAssertNotEqual(fingerprint(["ab", "c"]), fingerprint(["a", "bc"]))
        XCTAssertNotEqual(fingerprint(["abc"]), fingerprint(["abc", ""]))
        XCTAssertNotEqual(fingerprint(["a\u{0}"]), fingerprint(["a"]), "a zero byte is not padding")
        XCTAssertNotEqual(fingerprint(["12345678", "9"]), fingerprint(["123456789"]))
    }

    /// A batch keeps only the hash; it is the hash of the trace a single run keeps.
    func testABatchHashesTheTraceASingleRunKeeps() async {
        let seed: UInt64 = 21
        let single = await FaultSimulation.runOne(seed: seed)
        XCTAssertFalse(single.trace.isEmpty)
        XCTAssertEqual(single.traceHash, TraceFingerprint.of(single.trace).hex)
        var expected = FaultSimulation.Report()
        expected.add(single, replayCommand: FaultSimulation.replayCommand(seed: seed))
        let batch = await FaultSimulation.run(FaultSimulation.Options(runs: 1, firstSeed: seed))
        XCTAssertEqual(batch.traceHash, expected.traceHash)
    }
}
