/// Finds whether a text contains any of a set of secrets (order tokens,
/// receipts), in one pass over the text's bytes.
///
/// The fault simulation checks every log line of every run; asking
/// `String.contains` once per secret and line made that check a third of a
/// run's time. Here every secret is indexed by its first eight bytes, and a
/// table of its first two bytes skips almost every position of the text
/// without a lookup, so the cost is about one table read per byte.
struct SecretScanner {
    private static let keyLength = 8
    private var secretsByKey: [UInt64: [[UInt8]]] = [:]
    private var firstPairs = [Bool](repeating: false, count: 1 << 16)
    private var shortest = Int.max

    /// A scanner for `secrets`; secrets shorter than eight bytes are not indexed.
    init<S: Sequence>(_ secrets: S) where S.Element == String {
        for secret in secrets {
            let bytes = Array(secret.utf8)
            guard bytes.count >= Self.keyLength else { continue }
            secretsByKey[Self.key(bytes, at: 0), default: []].append(bytes)
            firstPairs[Int(bytes[0]) << 8 | Int(bytes[1])] = true
            shortest = min(shortest, bytes.count)
        }
    }

    /// Whether `text` contains one of the secrets.
    func isFound(in text: String) -> Bool {
        guard shortest != .max else { return false }
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count >= shortest else { return false }
            for start in 0...(bytes.count - shortest) {
                guard firstPairs[Int(bytes[start]) << 8 | Int(bytes[start + 1])] else { continue }
                guard let candidates = secretsByKey[Self.key(bytes, at: start)] else { continue }
                for secret in candidates where start + secret.count <= bytes.count {
                    if (0..<secret.count).allSatisfy({ bytes[start + $0] == secret[$0] }) { return true }
                }
            }
            return false
        }
    }

    private static func key<C: RandomAccessCollection>(_ bytes: C, at start: Int) -> UInt64 where C.Element == UInt8, C.Index == Int {
        var key: UInt64 = 0
        for offset in 0..<keyLength { key = key << 8 | UInt64(bytes[start + offset]) }
        return key
    }
}
