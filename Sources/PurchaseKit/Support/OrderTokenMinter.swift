/// Mints order tokens: version-4 UUIDs, lowercase, as StoreKit 2's
/// `appAccountToken` requires.
///
/// A token is the only link between a store transaction and the user who
/// paid, so it must be unguessable and never repeat: by default the bits come
/// from the system's cryptographic random source, fresh in every process. A
/// fault simulation gives a seed instead, so that its runs replay; an app
/// cannot (the seed is package-level configuration).
struct OrderTokenMinter: Sendable {
    private var seeded: SeededRandomNumberGenerator?
    private var system = SystemRandomBits()

    /// A minter on the system's random source, or on a seeded generator for replays.
    init(seed: UInt64?) {
        seeded = seed.map(SeededRandomNumberGenerator.init(seed:))
    }

    /// The next token.
    mutating func next() -> String {
        var high: UInt64
        var low: UInt64
        if var generator = seeded {
            high = generator.next()
            low = generator.next()
            seeded = generator
        } else {
            high = system.next()
            low = system.next()
        }
        high = (high & ~0xF000) | 0x4000                           // version 4
        low = (low & ~(0xC0 << 56)) | (0x80 << 56)                  // RFC 4122 variant
        return Self.format(high, low)
    }

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// 8-4-4-4-12 hex digits, written straight into the string's storage.
    static func format(_ high: UInt64, _ low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            func put(_ value: UInt64, nibbles: Int) {
                var shift = (nibbles - 1) * 4
                for _ in 0..<nibbles {
                    buffer[position] = digits[Int((value >> UInt64(shift)) & 0xF)]
                    position += 1
                    shift -= 4
                }
            }
            put(high >> 32, nibbles: 8)
            buffer[position] = UInt8(ascii: "-"); position += 1
            put(high >> 16, nibbles: 4)
            buffer[position] = UInt8(ascii: "-"); position += 1
            put(high, nibbles: 4)
            buffer[position] = UInt8(ascii: "-"); position += 1
            put(low >> 48, nibbles: 4)
            buffer[position] = UInt8(ascii: "-"); position += 1
            put(low, nibbles: 12)
            return position
        }
    }
}
