import Foundation
import PurchaseKit

/// Writes and checks the simulated store's receipts: a JSON payload and a
/// keyed checksum, so that the ``SimulatedReceiptServer`` can tell a receipt
/// the store made from a forged or garbled one.
///
/// The checksum is a keyed 128-bit hash written for the simulator (PurchaseKit
/// has no crypto dependency). It catches any edit in tests; it is not meant to
/// resist an attacker. Real receipts are checked by Apple's servers.
public struct ReceiptSigner: Sendable, Hashable, Codable {
    /// The shared key. Give the store and the server the same one.
    public let key: String

    /// The key used when none is given.
    public static let defaultKey = "purchasekit-simulated-store"

    public init(key: String = ReceiptSigner.defaultKey) {
        self.key = key
    }

    /// What a receipt says.
    struct Payload: Codable, Equatable {
        var transactionID: String
        var originalTransactionID: String
        var productID: String
        var quantity: Int
        var purchaseDate: Date
        var expirationDate: Date?
        var environment: StoreEnvironment

        init(transactionID: String, originalTransactionID: String, productID: String, quantity: Int,
             purchaseDate: Date, expirationDate: Date?, environment: StoreEnvironment) {
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID
            self.productID = productID
            self.quantity = quantity
            self.purchaseDate = purchaseDate
            self.expirationDate = expirationDate
            self.environment = environment
        }

        /// The fields in order; dates as the exact bits of their time interval.
        var fields: [String] {
            [transactionID, originalTransactionID, productID, String(quantity),
             String(purchaseDate.timeIntervalSinceReferenceDate.bitPattern, radix: 16),
             expirationDate.map { String($0.timeIntervalSinceReferenceDate.bitPattern, radix: 16) } ?? "",
             environment.rawValue]
        }

        init?(fields: [String]) {
            guard fields.count == 7, let quantity = Int(fields[3]),
                  let purchase = UInt64(fields[4], radix: 16),
                  let environment = StoreEnvironment(rawValue: fields[6]) else { return nil }
            var expiration: Date?
            if !fields[5].isEmpty {
                guard let bits = UInt64(fields[5], radix: 16) else { return nil }
                expiration = Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))
            }
            self.init(transactionID: fields[0], originalTransactionID: fields[1], productID: fields[2], quantity: quantity,
                      purchaseDate: Date(timeIntervalSinceReferenceDate: Double(bitPattern: purchase)),
                      expirationDate: expiration, environment: environment)
        }
    }

    /// Receipts are `PKSR2.<base64 fields>.<hex checksum>`; `PKSR1` receipts
    /// carried JSON, which cost a tenth of a fault-simulation run to write and read.
    private static let prefix = "PKSR2"
    private static let jsonPrefix = "PKSR1"
    private static let separatorByte: UInt8 = 0x1F

    /// The receipt of `transaction`.
    func receipt(for transaction: StoreTransaction) -> Data {
        // Bytes all the way, each written once: the same receipt as joining
        // `Payload.fields`, encoding them and interpolating the parts, without
        // the strings and buffers in between.
        var fields: [UInt8] = []
        fields.reserveCapacity(128)
        fields.append(contentsOf: transaction.id.utf8)
        fields.append(Self.separatorByte)
        fields.append(contentsOf: transaction.originalID.utf8)
        fields.append(Self.separatorByte)
        fields.append(contentsOf: transaction.productID.utf8)
        fields.append(Self.separatorByte)
        fields.append(contentsOf: String(transaction.quantity).utf8)
        fields.append(Self.separatorByte)
        Self.appendHex(transaction.purchaseDate.timeIntervalSinceReferenceDate.bitPattern, to: &fields)
        fields.append(Self.separatorByte)
        if let expiration = transaction.expirationDate {
            Self.appendHex(expiration.timeIntervalSinceReferenceDate.bitPattern, to: &fields)
        }
        fields.append(Self.separatorByte)
        fields.append(contentsOf: transaction.environment.rawValue.utf8)
        var receipt: [UInt8] = []
        receipt.reserveCapacity(Self.prefix.utf8.count + 1 + (fields.count + 2) / 3 * 4 + 1 + 32)
        receipt.append(contentsOf: Self.prefix.utf8)
        receipt.append(UInt8(ascii: "."))
        let bodyStart = receipt.count
        Self.appendBase64(of: fields, to: &receipt)
        let (high, low) = receipt.withUnsafeBufferPointer { checksumWords(ofBytes: $0[bodyStart...]) }
        receipt.append(UInt8(ascii: "."))
        Self.appendHex(high, to: &receipt)
        Self.appendHex(low, to: &receipt)
        return Data(receipt)
    }

    /// Reads a receipt, or says why it cannot be trusted (never echoing its content).
    /// Receipts written by earlier versions (a JSON payload) still open.
    func open(_ receipt: Data) -> Result<Payload, ReceiptProblem> {
        guard let text = String(data: receipt, encoding: .utf8) else { return .failure(.garbled) }
        // Split on bytes: the separators are ASCII, and a split on characters
        // would run grapheme breaking over the whole receipt.
        let parts = Self.split(text, on: UInt8(ascii: "."))
        guard parts.count == 3, parts[0] == Self.prefix || parts[0] == Self.jsonPrefix else { return .failure(.garbled) }
        guard checksum(of: parts[1]) == parts[2] else { return .failure(.badSignature) }
        guard let body = Data(base64Encoded: parts[1]) else { return .failure(.garbled) }
        let payload = parts[0] == Self.prefix
            ? Payload(fields: Self.split(String(decoding: body, as: UTF8.self), on: Self.separatorByte))
            : try? JSONDecoder().decode(Payload.self, from: body)
        guard let payload else { return .failure(.garbled) }
        return .success(payload)
    }

    /// `text` cut at every `separator` byte (an ASCII one), empty pieces kept.
    private static func split(_ text: String, on separator: UInt8) -> [String] {
        text.utf8.split(separator: separator, omittingEmptySubsequences: false).map { String(Substring($0)) }
    }

    /// Two 64-bit FNV-1a passes over key, body and key, each finished with a
    /// SplitMix64 mix; hex of both.
    func checksum(of body: String) -> String {
        checksum(ofBytes: body.utf8)
    }

    private func checksum<Bytes: Sequence<UInt8>>(ofBytes body: Bytes) -> String {
        let (high, low) = checksumWords(ofBytes: body)
        return String(high, radix: 16) + String(low, radix: 16)
    }

    /// The checksum's two halves, before they are written in hex.
    private func checksumWords<Bytes: Sequence<UInt8>>(ofBytes body: Bytes) -> (UInt64, UInt64) {
        // Both passes in one walk over the bytes in place: no array is built for them.
        var high: UInt64 = 0xCBF2_9CE4_8422_2325
        var low: UInt64 = 0x8422_2325_CBF2_9CE4
        func mix(_ byte: UInt8) {
            high = (high ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            low = (low ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        for byte in key.utf8 { mix(byte) }
        mix(0)
        for byte in body { mix(byte) }
        mix(0)
        for byte in key.utf8 { mix(byte) }
        var highMixer = SeededRandomNumberGenerator(seed: high)
        var lowMixer = SeededRandomNumberGenerator(seed: low)
        return (highMixer.next(), lowMixer.next())
    }

    /// Appends `value` as `String(value, radix: 16)` writes it: lowercase, no leading zeros.
    private static func appendHex(_ value: UInt64, to bytes: inout [UInt8]) {
        let top = max(0, (63 - value.leadingZeroBitCount) / 4 * 4)
        for shift in stride(from: top, through: 0, by: -4) {
            let digit = UInt8(truncatingIfNeeded: value >> UInt64(shift)) & 0x0F
            bytes.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") - 10 + digit)
        }
    }

    /// Base64's symbols, by the six-bit value they stand for.
    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends `bytes` in base64 as `Data.base64EncodedData()` writes it: the
    /// standard alphabet, `=` padding, no line breaks.
    private static func appendBase64(of bytes: [UInt8], to output: inout [UInt8]) {
        let alphabet = base64Alphabet
        func symbol(_ group: UInt32, _ shift: UInt32) -> UInt8 {
            alphabet[Int(truncatingIfNeeded: (group >> shift) & 0x3F)]
        }
        var index = 0
        while bytes.count - index >= 3 {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(symbol(group, 18))
            output.append(symbol(group, 12))
            output.append(symbol(group, 6))
            output.append(symbol(group, 0))
            index += 3
        }
        let rest = bytes.count - index
        guard rest > 0 else { return }
        let group = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
        output.append(symbol(group, 18))
        output.append(symbol(group, 12))
        output.append(rest == 2 ? symbol(group, 6) : UInt8(ascii: "="))
        output.append(UInt8(ascii: "="))
    }
}

/// Why a receipt is not trusted.
enum ReceiptProblem: Error, Equatable {
    /// Not a receipt of this store at all (truncated, foreign, empty).
    case garbled
    /// The payload does not match its checksum (edited, or signed with another key).
    case badSignature

    var reason: String {
        switch self {
        case .garbled: return "21002: the receipt could not be read"
        case .badSignature: return "21003: the receipt could not be authenticated"
        }
    }
}
