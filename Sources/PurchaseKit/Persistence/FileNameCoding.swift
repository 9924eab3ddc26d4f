import Foundation

/// Maps order ids to file names and back.
///
/// Order ids come from a server and are untrusted: they may contain `/`, be
/// `..`, be empty, hold any Unicode or be 10 kB long. Every id gets a name that
/// is safe on every file system PurchaseKit runs on:
///
/// - `order-<escaped>.json` when short enough: the UTF-8 bytes `a-z 0-9 - _`
///   stay as they are and every other byte becomes `%xx` (lower-case hex). The
///   names use no upper-case letters, because Apple file systems ignore case,
///   and only ASCII, so that no file system normalises them. The mapping is
///   one-to-one: each id has one name, each valid name one id.
/// - `hash-<16 hex digits>[-<n>].json` for longer ids: an FNV-1a 64 hash of the
///   UTF-8 bytes, plus a number that tells apart ids whose hashes collide. The
///   true id is the one inside the file.
///
/// Temporary files start with `.tmp-`, so they are never mistaken for orders.
enum FileNameCoding {
    /// The extension of every order file.
    static let suffix = ".json"
    static let readablePrefix = "order-"
    static let hashedPrefix = "hash-"
    static let temporaryPrefix = ".tmp-"
    /// The longest escaped id kept readable. Names stay well under the 255 bytes
    /// of NAME_MAX, and under the 143 of encrypted file systems such as eCryptfs.
    static let maximumEscapedLength = 120

    /// What a valid order file name says about the order inside.
    enum Name: Hashable {
        /// The UTF-8 bytes of the id.
        case readable([UInt8])
        /// The hash of the id's UTF-8 bytes and the collision number.
        case hashed(UInt64, disambiguator: Int)
    }

    /// The file name for `id`. `disambiguator` only matters for long ids; the
    /// store picks the first one no other id uses.
    static func fileName(for id: String, disambiguator: Int = 0) -> String {
        if let escaped = escape(id) { return readablePrefix + escaped + suffix }
        let hash = String(fnv1a64(id.utf8), radix: 16)
        let padded = String(repeating: "0", count: 16 - hash.count) + hash
        return hashedPrefix + padded + (disambiguator == 0 ? "" : "-\(disambiguator)") + suffix
    }

    /// Whether `id` gets a hashed name, so that several ids may compete for one.
    static func needsHash(_ id: String) -> Bool { escape(id) == nil }

    /// Parses an order file name; nil for anything this coding does not produce.
    static func parse(_ fileName: String) -> Name? {
        guard fileName.hasSuffix(suffix) else { return nil }
        let stem = fileName.dropLast(suffix.count)
        if stem.hasPrefix(readablePrefix) {
            return unescape(Substring(stem.dropFirst(readablePrefix.count))).map(Name.readable)
        }
        guard stem.hasPrefix(hashedPrefix) else { return nil }
        let parts = stem.dropFirst(hashedPrefix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, parts[0].count == 16,
              parts[0].allSatisfy({ $0.isASCII && ($0.isNumber || ("a"..."f").contains($0)) }),
              let hash = UInt64(parts[0], radix: 16) else { return nil }
        guard parts.count == 2 else { return .hashed(hash, disambiguator: 0) }
        // Exactly the spelling `fileName(for:disambiguator:)` writes: no sign, no leading zero.
        guard let number = Int(parts[1]), number > 0, String(number) == parts[1] else { return nil }
        return .hashed(hash, disambiguator: number)
    }

    /// Whether a file with this name may hold the order with this id (byte for byte).
    static func name(_ fileName: String, fits id: String) -> Bool {
        switch parse(fileName) {
        case .readable(let bytes): return bytes.elementsEqual(id.utf8)
        case .hashed(let hash, _): return needsHash(id) && hash == fnv1a64(id.utf8)
        case nil: return false
        }
    }

    /// A fresh, unique name for a temporary file.
    static func temporaryName() -> String {
        temporaryPrefix + UUID().uuidString.lowercased() + ".partial"
    }

    /// Whether a name is one of our temporary files.
    static func isTemporary(_ fileName: String) -> Bool { fileName.hasPrefix(temporaryPrefix) }

    /// FNV-1a, 64 bits: small, stable across runs and platforms (unlike `Hasher`).
    static func fnv1a64<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func isKept(_ byte: UInt8) -> Bool {
        (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2d || byte == 0x5f
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The escaped id, or nil when it would be longer than ``maximumEscapedLength``.
    private static func escape(_ id: String) -> String? {
        var out: [UInt8] = []
        for byte in id.utf8 {
            if isKept(byte) {
                out.append(byte)
            } else {
                out += [0x25, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xf)]]
            }
            if out.count > maximumEscapedLength { return nil }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The id bytes of an escaped stem; nil unless it is exactly what `escape` writes.
    private static func unescape(_ stem: Substring) -> [UInt8]? {
        let input = Array(stem.utf8)
        guard input.count <= maximumEscapedLength else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < input.count {
            let byte = input[index]
            if isKept(byte) {
                bytes.append(byte)
                index += 1
                continue
            }
            guard byte == 0x25, index + 2 < input.count,
                  let high = hexDigits.firstIndex(of: input[index + 1]),
                  let low = hexDigits.firstIndex(of: input[index + 2]) else { return nil }
            let decoded = UInt8(high << 4 | low)
            // A kept byte written as an escape would give one id two names.
            guard !isKept(decoded) else { return nil }
            bytes.append(decoded)
            index += 3
        }
        return bytes
    }
}
