/// A 64-bit fingerprint of a run's trace, the same on every run and platform.
///
/// A trace line holds the world after a step, so the lines of a run add up
/// to many kilobytes; this takes their UTF-8 eight bytes at a time (read
/// little-endian), where ``StableHash``'s FNV-1a takes one byte per multiply.
/// Lines are kept apart: each ends with its length.
struct TraceFingerprint: Sendable {
    private(set) var value: UInt64 = 0x243F_6A88_85A3_08D3

    /// Adds one line.
    mutating func add(_ line: String) {
        var line = line
        line.withUTF8 { add($0) }
    }

    /// Adds one line, as UTF-8.
    mutating func add(_ line: [UInt8]) {
        line.withUnsafeBufferPointer { add($0) }
    }

    private mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
        var hash = value
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawBufferPointer(bytes).loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            hash = Self.mix(hash ^ word)
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        hash = Self.mix(hash ^ tail)
        value = Self.mix(hash ^ UInt64(bytes.count))
    }

    /// Spreads every bit of `x` over the whole word (a multiply-xorshift step).
    private static func mix(_ x: UInt64) -> UInt64 {
        let y = (x ^ (x >> 32)) &* 0xD6E8_FEB8_6659_FD93
        return y ^ (y >> 29)
    }

    /// The fingerprint of `lines`.
    static func of(_ lines: [String]) -> TraceFingerprint {
        var print = TraceFingerprint()
        for line in lines { print.add(line) }
        return print
    }

    /// Sixteen hex digits.
    var hex: String { value.hexString }
}

/// A trace line being written, as UTF-8 bytes: appending a string's bytes
/// costs a copy, where appending to a `String` checks and grows it each time.
struct TraceLine {
    private(set) var bytes: [UInt8] = []

    /// Empties the line, keeping its room.
    mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    /// Appends `text`'s UTF-8.
    mutating func write(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// Writes each item with `write`, a space between two.
    mutating func writeSeparated<Items: Sequence>(_ items: Items, _ write: (inout TraceLine, Items.Element) -> Void) {
        var first = true
        for item in items {
            if !first { self.write(" ") }
            first = false
            write(&self, item)
        }
    }

    /// The line as text.
    var text: String { String(decoding: bytes, as: UTF8.self) }
}
