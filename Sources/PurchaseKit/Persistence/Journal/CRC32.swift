/// CRC-32 (the IEEE 802.3 polynomial, reflected, as in zlib and PNG), computed
/// eight bytes at a time with eight lookup tables ("slicing by 8").
///
/// The journal checks every record with it: a launch checks every byte of the
/// snapshot, so the byte-at-a-time loop (about four times slower) would cost
/// tens of milliseconds on a large store.
enum CRC32 {
    /// The checksum of `bytes`, continuing from `crc` (0 to start).
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        var value = ~crc
        var index = 0
        let count = bytes.count
        tables.withUnsafeBufferPointer { t in
            while index + 8 <= count {
                let low = UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8
                    | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24
                let high = UInt32(bytes[index + 4]) | UInt32(bytes[index + 5]) << 8
                    | UInt32(bytes[index + 6]) << 16 | UInt32(bytes[index + 7]) << 24
                let mixed = value ^ low
                value = t[7 * 256 + Int(mixed & 0xFF)] ^ t[6 * 256 + Int((mixed >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((mixed >> 16) & 0xFF)] ^ t[4 * 256 + Int(mixed >> 24)]
                    ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
                index += 8
            }
            while index < count {
                value = t[Int((value ^ UInt32(bytes[index])) & 0xFF)] ^ (value >> 8)
                index += 1
            }
        }
        return ~value
    }

    /// The checksum of a byte array.
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    /// Table 0 is the classic byte table; table k advances a byte by k more zero bytes.
    private static let tables: [UInt32] = {
        let polynomial: UInt32 = 0xEDB8_8320
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var value = UInt32(byte)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ polynomial : value >> 1 }
            tables[byte] = value
        }
        for slice in 1..<8 {
            for byte in 0..<256 {
                let previous = tables[(slice - 1) * 256 + byte]
                tables[slice * 256 + byte] = tables[Int(previous & 0xFF)] ^ (previous >> 8)
            }
        }
        return tables
    }()
}
