import Foundation
import XCTest
@testable import PurchaseKit

final class OrderBinaryCodingTests: XCTestCase {
    private func encode(_ order: Order) -> [UInt8] {
        var writer = ByteWriter()
        OrderBinaryCoding.encode(order, into: &writer)
        return writer.bytes
    }

    private func decode(_ bytes: [UInt8]) throws -> Order {
        try bytes.withUnsafeBytes { raw in try OrderBinaryCoding.decode(raw) }
    }

    func testCRC32MatchesTheStandardCheckValues() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
        XCTAssertEqual(CRC32.checksum([]), 0)
        // Lengths around the eight-byte stride, against a bit-by-bit reference.
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var reference: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                reference ^= UInt32(byte)
                for _ in 0..<8 { reference = reference & 1 == 1 ? (reference >> 1) ^ 0xEDB8_8320 : reference >> 1 }
            }
            XCTAssertEqual(CRC32.checksum(bytes), ~reference, "length \(length)")
        }
    }

    func testCRC32IsTheSameFromAnyStartingAddressAndInPieces() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 7) }
        for offset in 0..<9 {
            let tail = Array(bytes[offset...])
            let whole = CRC32.checksum(tail)
            // The same bytes read from an address that is not eight-aligned.
            let unaligned = bytes.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            XCTAssertEqual(unaligned, whole, "offset \(offset)")
            // And in two pieces, the second continuing from the first.
            let split = 13 + offset
            let first = tail.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[..<split])) }
            let both = tail.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[split...]), continuing: first) }
            XCTAssertEqual(both, whole, "offset \(offset), split \(split)")
        }
    }

    func testEveryFieldRoundTripsAndEveryAbsentFieldStaysAbsent() throws {
        let full = makeFullOrder("o-full")
        XCTAssertEqual(try decode(encode(full)), full)
        let bare = Order(id: "o-bare", productID: "p", userID: "", createdAt: Date(timeIntervalSinceReferenceDate: -1.5))
        XCTAssertEqual(try decode(encode(bare)), bare)
        // The JSON form says the same: the two codings agree on every field.
        XCTAssertEqual(try OrderCoding.decode(OrderCoding.encode(full)), try decode(encode(full)))
        var extremes = full
        extremes.quantity = Int.min
        extremes.transaction?.quantity = Int.max
        extremes.id = String(repeating: "é", count: 300)
        XCTAssertEqual(try decode(encode(extremes)), extremes)
        // A transaction without a reason (a store that does not say, or a
        // record written before reasons were kept) reads back without one.
        var noReason = full
        noReason.transaction?.reason = nil
        XCTAssertEqual(try decode(encode(noReason)), noReason)
        XCTAssertEqual(encode(noReason).count, encode(full).count - 1 - "purchase".utf8.count)
        var renewal = full
        renewal.transaction?.reason = .renewal
        XCTAssertEqual(try decode(encode(renewal)).transaction?.reason, .renewal)
    }

    func testAnUnknownTransactionReasonIsDamageNamingItsField() throws {
        var raw = encode(makeFullOrder("o-reason"))
        let at = try XCTUnwrap(raw.lastRange(of: Array("purchase".utf8)))
        raw.replaceSubrange(at, with: Array("purchasx".utf8))
        XCTAssertThrowsError(try decode(raw)) { XCTAssertEqual("\($0)", "the field 'transaction.reason' holds an unknown value") }
    }

    /// The bytes themselves, fixed: a journal written by one build is read by
    /// the next, so the encoder may get faster but never write otherwise.
    /// Non-ASCII text, a receipt that is a slice of a larger buffer, and
    /// orders with and without metadata.
    func testTheBytesOfAnOrderAreTheOnesEarlierBuildsWrote() {
        var order = CoreFixtures.fullOrder(id: "o-bytes")
        order.hint = "Zahlung ausstehend – ✓"
        let buffer = Data("--SECRET-RECEIPT--".utf8)
        order.transaction?.receipt = buffer[buffer.startIndex.advanced(by: 2)..<buffer.endIndex.advanced(by: -2)]
        var bare = Order(id: "o-bare", productID: "p", userID: "", createdAt: Date(timeIntervalSinceReferenceDate: -1.5))
        bare.metadata = [:]
        let hex = { (bytes: [UInt8]) in bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
        XCTAssertEqual(hex(encode(order)), Self.fullOrderBytes)
        XCTAssertEqual(hex(encode(bare)), Self.bareOrderBytes)
    }

    private static let fullOrderBytes = """
        01f9ff0000076f2d627974657306757365722d3109544f4b454e2d58595a000060a255a6c6410474782d3117636f6d2e
        6578616d706c652e70726f2e6d6f6e74686c79060772656e6577616c0e6e65656473417474656e74696f6ec520000c55
        a6c6410000203e55a6c6410000407055a6c64108000008dc5ca6c6411a5a61686c756e672061757373746568656e6420
        e2809320e29c9317766572696669636174696f6e556e617661696c61626c650c6e6574776f726b4572726f72000070d0
        5ea6c6410474782d3017636f6d2e6578616d706c652e70726f2e6d6f6e74686c790000100057a6c641000040801dbac6
        4100006020f8adc6410e646576656c6f70657249737375650409544f4b454e2d58595a0e5345435245542d5245434549
        50540a70726f64756374696f6e0772656e6577616c020863616d706169676e06737072696e67047469657204676f6c64
        """.split(separator: "\n").joined()
    private static let bareOrderBytes = """
        0100000000066f2d6261726500000000000000f8bf0170020870757263686173650763726561746564000000000000f8
        bf0000
        """.split(separator: "\n").joined()

    func testEqualOrdersEncodeToEqualBytes() {
        var one = makeFullOrder("o-1")
        one.metadata = ["b": "2", "a": "1", "c": "3"]
        var other = one
        other.metadata = ["c": "3", "a": "1", "b": "2"]
        XCTAssertEqual(encode(one), encode(other))
    }

    func testKeysAreReadWithoutTheRest() throws {
        let order = makeFullOrder("o-keys", user: "u-9")
        let keys = try encode(order).withUnsafeBytes { try OrderBinaryCoding.decodeKeys($0) }
        XCTAssertEqual(keys.id, "o-keys")
        XCTAssertEqual(keys.userID, "u-9")
        XCTAssertEqual(keys.token, order.token)
        XCTAssertEqual(keys.transactionID, "t-o-keys")
        XCTAssertEqual(keys.updatedAt, order.updatedAt)
        XCTAssertEqual(keys.laterTransactionOriginalID, "t-original-o-keys", "a renewal's purchase, skipped to")
        var first = order
        first.transaction?.originalID = "t-o-keys"
        let firstKeys = try encode(first).withUnsafeBytes { try OrderBinaryCoding.decodeKeys($0) }
        XCTAssertNil(firstKeys.laterTransactionOriginalID, "a first purchase is found by its transaction id")
        let bare = makeOrder("o-bare")
        let bareKeys = try encode(bare).withUnsafeBytes { try OrderBinaryCoding.decodeKeys($0) }
        XCTAssertNil(bareKeys.laterTransactionOriginalID)
        // A record cut anywhere before the original id is damage, never a key half read.
        let bytes = encode(order)
        let end = try XCTUnwrap(bytes.firstRange(of: Array("t-original-o-keys".utf8))).upperBound
        for length in 0..<end {
            XCTAssertThrowsError(try Array(bytes.prefix(length)).withUnsafeBytes { try OrderBinaryCoding.decodeKeys($0) },
                                 "cut at \(length)")
        }
    }

    func testEveryTruncationAndUnknownValueIsDamageNamingAField() throws {
        let bytes = encode(makeFullOrder("o-cut"))
        for length in 0..<bytes.count {
            XCTAssertThrowsError(try decode(Array(bytes.prefix(length))), "cut at \(length)") { error in
                XCTAssertTrue(error is BinaryDamage)
                XCTAssertFalse("\(error)".contains("token-o-cut"), "a damage message shows a value: \(error)")
            }
        }
        XCTAssertThrowsError(try decode(bytes + [0])) { XCTAssertTrue("\($0)".contains("bytes follow")) }
        var status = makeOrder("o-status")
        status.status = .purchased
        var raw = encode(status)
        let at = try XCTUnwrap(raw.firstRange(of: Array("purchased".utf8)))
        raw.replaceSubrange(at, with: Array("purchasex".utf8))
        XCTAssertThrowsError(try decode(raw)) { XCTAssertEqual("\($0)", "the field 'status' holds an unknown value") }
        var future = bytes
        future[0] = 2
        XCTAssertThrowsError(try decode(future)) { XCTAssertTrue("\($0)".contains("newer PurchaseKit")) }
        var unknownBit = bytes
        unknownBit[4] |= 0x80
        XCTAssertThrowsError(try decode(unknownBit)) { XCTAssertTrue("\($0)".contains("presence bits")) }
    }

    func testAnUnknownProductTypeReadsAsUnknownLikeTheJSONForm() throws {
        var order = makeOrder("o-type")
        order.productType = .consumable
        var raw = encode(order)
        let at = try XCTUnwrap(raw.firstRange(of: Array("consumable".utf8)))
        raw.replaceSubrange(at, with: Array("consumablx".utf8))
        XCTAssertNil(try decode(raw).productType)
    }

    func testAFrameIsTrustedOnlyWhenMagicLengthAndChecksumAgree() throws {
        var writer = ByteWriter()
        JournalRecord.archive(id: "o-1", into: &writer)
        JournalRecord.remove(id: "o-2", into: &writer)
        let frames = writer.bytes
        var payloads: [Range<Int>] = []
        let scan = frames.withUnsafeBytes { JournalFrame.scan($0, maximumPayload: 64) { payloads.append($0) } }
        XCTAssertEqual(payloads.count, 2)
        XCTAssertTrue(scan.damaged.isEmpty)
        for index in frames.indices {
            var damaged = frames
            damaged[index] ^= 0x01
            var found: [Range<Int>] = []
            let result = damaged.withUnsafeBytes { JournalFrame.scan($0, maximumPayload: 64) { found.append($0) } }
            XCTAssertEqual(found.count, 1, "a flipped bit at byte \(index) costs exactly its record")
            XCTAssertEqual(result.damaged.count, 1, "byte \(index)")
        }
        // A length above the limit is not trusted, however well it is checksummed.
        let tooLong = frames.withUnsafeBytes { raw -> Int in
            var count = 0
            _ = JournalFrame.scan(raw, maximumPayload: 2) { _ in count += 1 }
            return count
        }
        XCTAssertEqual(tooLong, 0)
    }
}
