/// FNV-1a, 64 bits, over UTF-8: a hash that is the same on every run and
/// platform (Swift's `Hasher` is seeded per process), for keyed fault
/// decisions and for adding up the trace hashes of many runs.
public struct StableHash: Sendable, Hashable {
    /// The hash so far.
    public private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    public init() {}

    /// Adds the UTF-8 bytes of `text`, then a separator byte.
    public mutating func combine(_ text: String) {
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01B3
        }
        value ^= 0xFF
        value = value &* 0x0000_0100_0000_01B3
    }

    /// The hash of `parts`.
    public static func of(_ parts: [String]) -> UInt64 {
        var hash = StableHash()
        for part in parts { hash.combine(part) }
        return hash.value
    }

    /// Sixteen hex digits.
    public var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
