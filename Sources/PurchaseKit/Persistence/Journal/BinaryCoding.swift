import Foundation

/// Appends the little-endian, length-prefixed values the journal's records are made of.
struct ByteWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func uint32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func uint64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// An unsigned LEB128 number: one byte below 128.
    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// A signed number, zigzag-encoded so that small negative numbers stay short.
    mutating func signed(_ value: Int) {
        let wide = Int64(value)
        varint(UInt64(bitPattern: (wide << 1) ^ (wide >> 63)))
    }

    /// A date as the bit pattern of its seconds since the reference date: it reads back exactly.
    mutating func date(_ value: Date) { uint64(value.timeIntervalSinceReferenceDate.bitPattern) }

    mutating func string(_ value: String) {
        // A native string lends its bytes in place; only a bridged or
        // foreign one is copied into contiguous storage first.
        if value.utf8.withContiguousStorageIfAvailable({ lengthPrefixed($0) }) != nil { return }
        var value = value
        value.withUTF8 { lengthPrefixed($0) }
    }

    mutating func data(_ value: Data) {
        // From Data's buffer in one copy: appending the Data itself went
        // through its generic sequence path, several times the cost.
        value.withUnsafeBytes { lengthPrefixed($0.bindMemory(to: UInt8.self)) }
    }

    /// The byte count as a varint, then the bytes.
    private mutating func lengthPrefixed(_ bytes: UnsafeBufferPointer<UInt8>) {
        varint(UInt64(bytes.count))
        self.bytes.append(contentsOf: bytes)
    }
}

/// Why bytes that passed their checksum could not be read as a record: names
/// the field at fault, never a value (records hold receipts and tokens).
struct BinaryDamage: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Reads what ``ByteWriter`` wrote, from memory it does not own: every read
/// checks the remaining length, so damaged lengths fail instead of trapping.
struct ByteReader: ~Copyable {
    let bytes: UnsafeRawBufferPointer
    private(set) var position = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }

    private mutating func take(_ count: Int, _ field: StaticString) throws(BinaryDamage) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= bytes.count - position else { throw BinaryDamage("the field '\(field)' runs past the end of the record") }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
    }

    mutating func byte(_ field: StaticString) throws(BinaryDamage) -> UInt8 {
        try take(1, field)[0]
    }

    mutating func uint32(_ field: StaticString) throws(BinaryDamage) -> UInt32 {
        let raw = try take(4, field)
        return UInt32(raw[0]) | UInt32(raw[1]) << 8 | UInt32(raw[2]) << 16 | UInt32(raw[3]) << 24
    }

    mutating func uint64(_ field: StaticString) throws(BinaryDamage) -> UInt64 {
        let raw = try take(8, field)
        var value: UInt64 = 0
        for index in (0..<8).reversed() { value = value << 8 | UInt64(raw[index]) }
        return value
    }

    mutating func varint(_ field: StaticString) throws(BinaryDamage) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte(field)
            guard shift < 64, shift < 63 || next <= 1 else { throw BinaryDamage("the number in the field '\(field)' is too large") }
            value |= UInt64(next & 0x7F) << shift
            if next < 0x80 { return value }
            shift += 7
        }
    }

    mutating func signed(_ field: StaticString) throws(BinaryDamage) -> Int {
        let raw = try varint(field)
        let wide = Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
        guard let value = Int(exactly: wide) else { throw BinaryDamage("the number in the field '\(field)' is too large") }
        return value
    }

    mutating func length(_ field: StaticString) throws(BinaryDamage) -> Int {
        let raw = try varint(field)
        guard raw <= UInt64(bytes.count - position) else { throw BinaryDamage("the field '\(field)' runs past the end of the record") }
        return Int(raw)
    }

    mutating func date(_ field: StaticString) throws(BinaryDamage) -> Date {
        let seconds = Double(bitPattern: try uint64(field))
        guard seconds.isFinite else { throw BinaryDamage("the date in the field '\(field)' is not a number") }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    mutating func string(_ field: StaticString) throws(BinaryDamage) -> String {
        let utf8 = try take(try length(field), field)
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Skips a string without making one.
    mutating func skipString(_ field: StaticString) throws(BinaryDamage) {
        _ = try take(try length(field), field)
    }

    /// Skips a date without reading it.
    mutating func skipDate(_ field: StaticString) throws(BinaryDamage) {
        _ = try take(8, field)
    }

    mutating func data(_ field: StaticString) throws(BinaryDamage) -> Data {
        Data(try take(try length(field), field))
    }

    /// A string that must be the raw value of `Value`.
    mutating func value<Value: RawRepresentable>(_ type: Value.Type, _ field: StaticString) throws(BinaryDamage) -> Value
    where Value.RawValue == String {
        guard let value = Value(rawValue: try string(field)) else { throw BinaryDamage("the field '\(field)' holds an unknown value") }
        return value
    }
}
