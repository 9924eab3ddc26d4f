import Foundation

/// How records sit in ``JournalOrderStore``'s files: each one framed as
///
/// ```
/// magic (A5 4A 52 31)  payload length (u32 LE)  CRC-32 of the length and payload (u32 LE)  payload
/// ```
///
/// A reader trusts a record only when its magic, a plausible length and its
/// checksum all agree. Anything else is not a record: a torn tail, garbage, a
/// damaged sector. Because every record starts with the magic, a reader that
/// meets damage looks for the next place where a whole record starts, so one
/// bad byte costs one record and not the rest of the file.
enum JournalFrame {
    static let magic: [UInt8] = [0xA5, 0x4A, 0x52, 0x31]
    static let headerSize = 12

    /// Starts a frame in `writer`; write the payload, then call ``finish(_:from:)``.
    static func start(_ writer: inout ByteWriter) -> Int {
        let start = writer.bytes.count
        writer.bytes.append(contentsOf: magic)
        writer.bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 0])
        return start
    }

    /// Fills in the length and checksum of the frame begun at `start`.
    static func finish(_ writer: inout ByteWriter, from start: Int) {
        let length = UInt32(writer.bytes.count - start - headerSize)
        withUnsafeBytes(of: length.littleEndian) { raw in
            for index in 0..<4 { writer.bytes[start + 4 + index] = raw[index] }
        }
        let crc = writer.bytes.withUnsafeBytes { all in
            let lengthBytes = UnsafeRawBufferPointer(rebasing: all[(start + 4)..<(start + 8)])
            let payload = UnsafeRawBufferPointer(rebasing: all[(start + headerSize)...])
            return CRC32.checksum(payload, continuing: CRC32.checksum(lengthBytes))
        }
        withUnsafeBytes(of: crc.littleEndian) { raw in
            for index in 0..<4 { writer.bytes[start + 8 + index] = raw[index] }
        }
    }

    /// What a file holds: the payload of every whole record, in order, and the
    /// byte ranges that are not records.
    struct Scan {
        var damaged: [Range<Int>] = []
        /// Where the last whole record ends: appending there continues the file.
        var endOfRecords = 0
    }

    /// Walks `bytes`, calling `record` with the range of each whole record's
    /// payload. A run of zero bytes at the very end is not damage: it is what a
    /// preallocated or zero-padded file holds past its last write.
    static func scan(_ bytes: UnsafeRawBufferPointer, maximumPayload: Int, record: (Range<Int>) -> Void) -> Scan {
        var scan = Scan()
        var position = 0
        while position < bytes.count {
            if let payload = frame(at: position, in: bytes, maximumPayload: maximumPayload) {
                record(payload)
                position = payload.upperBound
                scan.endOfRecords = position
                continue
            }
            let next = nextFrame(after: position, in: bytes, maximumPayload: maximumPayload)
            let gap = position..<(next ?? bytes.count)
            if next != nil || !UnsafeRawBufferPointer(rebasing: bytes[gap]).allSatisfy({ $0 == 0 }) {
                scan.damaged.append(gap)
            }
            position = gap.upperBound
        }
        return scan
    }

    /// The payload range of a valid frame starting at `position`, if one does.
    static func frame(at position: Int, in bytes: UnsafeRawBufferPointer, maximumPayload: Int) -> Range<Int>? {
        guard bytes.count - position >= headerSize,
              bytes[position] == magic[0], bytes[position + 1] == magic[1],
              bytes[position + 2] == magic[2], bytes[position + 3] == magic[3] else { return nil }
        let length = Int(readUInt32(bytes, at: position + 4))
        guard length <= maximumPayload, length <= bytes.count - position - headerSize else { return nil }
        let payload = (position + headerSize)..<(position + headerSize + length)
        let expected = readUInt32(bytes, at: position + 8)
        let lengthBytes = UnsafeRawBufferPointer(rebasing: bytes[(position + 4)..<(position + 8)])
        let actual = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[payload]), continuing: CRC32.checksum(lengthBytes))
        return actual == expected ? payload : nil
    }

    private static func nextFrame(after position: Int, in bytes: UnsafeRawBufferPointer, maximumPayload: Int) -> Int? {
        var candidate = position + 1
        while candidate + headerSize <= bytes.count {
            if bytes[candidate] == magic[0], frame(at: candidate, in: bytes, maximumPayload: maximumPayload) != nil {
                return candidate
            }
            candidate += 1
        }
        return nil
    }

    static func readUInt32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
