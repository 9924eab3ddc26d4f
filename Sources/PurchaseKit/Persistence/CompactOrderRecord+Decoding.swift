import Foundation

extension CompactOrderRecord {
    /// Why a line is not a record: the field at fault and what is wrong with
    /// it, never its value (which may be a token).
    struct Damage: Error, Equatable {
        var field: String?
        var problem: String

        var description: String { field.map { "field '\($0)' \(problem)" } ?? problem }
    }

    /// Reads one record from the bytes of one line, without its line feed,
    /// of a segment of ledger version `version` (nil: unknown, its header is
    /// damaged). A version 1 line has the first ``version1FieldCount`` fields;
    /// a later one all of them, so that a torn line is never read as an older one.
    static func decode(_ line: UnsafeRawBufferPointer, version: Int? = FileOrderLedger.header.version) throws(Damage) -> Order {
        var fields: [Range<Int>] = []
        fields.reserveCapacity(fieldNames.count)
        var start = 0
        for index in 0..<line.count where line[index] == tab {
            fields.append(start..<index)
            start = index + 1
        }
        fields.append(start..<line.count)
        let expected = version == 1 ? version1FieldCount : fieldNames.count
        guard fields.count == expected || (version == nil && fields.count == version1FieldCount) else {
            throw Damage(field: nil, problem: "it has \(fields.count) fields instead of \(expected)")
        }
        let r = FieldReader(line: line, fields: fields)
        var order = Order(id: try r.required(r.string(0), 0), productID: try r.required(r.string(2), 2),
                          userID: try r.required(r.string(1), 1), token: try r.string(6),
                          quantity: try r.required(r.integer(3), 3),
                          source: try r.required(r.value(5, OrderSource.self), 5),
                          status: try r.required(r.value(4, OrderStatus.self), 4),
                          createdAt: try r.required(r.date(7), 7))
        order.updatedAt = try r.required(r.date(8), 8)
        order.paymentBeganAt = try r.date(9)
        order.paymentFinishedAt = try r.date(10)
        order.verificationAttempts = try r.required(r.integer(11), 11)
        order.nextAttemptAt = try r.date(12)
        order.lastErrorCode = try r.string(13).map(PurchaseKitError.Code.init(rawValue:))
        order.storeFailureReason = try r.value(14, StoreFailureReason.self)
        order.finishedAt = try r.date(15)
        if fields.count > version1FieldCount {
            order.productType = try r.value(26, ProductType.self)
            order.subscriptionGroupID = try r.string(27)
        }
        guard let transactionID = try r.string(16) else {
            guard fields[17..<version1FieldCount].allSatisfy(\.isEmpty) else {
                throw Damage(field: fieldNames[16], problem: "is missing while other transaction fields are set")
            }
            return order
        }
        var token = order.token
        if !fields[24].isEmpty {
            token = fields[24].count == 1 && line[fields[24].lowerBound] == 0x2D ? nil : try r.required(r.string(24), 24)
        }
        order.transaction = StoreTransaction(
            id: transactionID, originalID: try r.string(17) ?? transactionID,
            productID: try r.string(18) ?? order.productID, purchaseDate: try r.required(r.date(19), 19),
            expirationDate: try r.date(20), revocationDate: try r.date(21),
            revocationReason: try r.value(22, RevocationReason.self), quantity: try r.integer(23) ?? order.quantity,
            orderToken: token, receipt: Data(), environment: try r.required(r.value(25, StoreEnvironment.self), 25))
        return order
    }

    /// Reads typed values from the fields of one line.
    private struct FieldReader {
        let line: UnsafeRawBufferPointer
        let fields: [Range<Int>]

        func required<Value>(_ value: Value?, _ index: Int) throws(Damage) -> Value {
            guard let value else { throw Damage(field: fieldNames[index], problem: "is missing") }
            return value
        }

        /// A string field: empty is nil; otherwise `=` and the escaped UTF-8 bytes.
        func string(_ index: Int) throws(Damage) -> String? {
            let range = fields[index]
            guard !range.isEmpty else { return nil }
            guard line[range.lowerBound] == present else {
                throw Damage(field: fieldNames[index], problem: "is not a string")
            }
            let value = UnsafeRawBufferPointer(rebasing: line[(range.lowerBound + 1)..<range.upperBound])
            if value.allSatisfy({ $0 < 0x80 && $0 != percent }) {
                return String(decoding: value, as: UTF8.self)  // The usual case: nothing to unescape or validate.
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(range.count - 1)
            var position = range.lowerBound + 1
            var isASCII = true
            while position < range.upperBound {
                var byte = line[position]
                if byte == percent {
                    guard position + 2 < range.upperBound, let high = hexValue(line[position + 1]),
                          let low = hexValue(line[position + 2]) else {
                        throw Damage(field: fieldNames[index], problem: "has a broken escape")
                    }
                    byte = high << 4 | low
                    position += 2
                }
                isASCII = isASCII && byte < 0x80
                bytes.append(byte)
                position += 1
            }
            let text = String(decoding: bytes, as: UTF8.self)
            // Invalid UTF-8 would have been replaced, changing the bytes: refuse it rather than change an id.
            guard isASCII || text.utf8.elementsEqual(bytes) else {
                throw Damage(field: fieldNames[index], problem: "is not valid UTF-8")
            }
            return text
        }

        func value<Value: RawRepresentable>(_ index: Int, _ type: Value.Type) throws(Damage) -> Value? where Value.RawValue == String {
            guard let raw = try string(index) else { return nil }
            guard let value = Value(rawValue: raw) else {
                throw Damage(field: fieldNames[index], problem: "has an unknown value")
            }
            return value
        }

        func integer(_ index: Int) throws(Damage) -> Int? {
            guard let text = try ascii(index) else { return nil }
            guard let value = Int(text) else { throw Damage(field: fieldNames[index], problem: "is not a whole number") }
            return value
        }

        func date(_ index: Int) throws(Damage) -> Date? {
            guard let text = try ascii(index) else { return nil }
            guard let seconds = Double(text), seconds.isFinite else {
                throw Damage(field: fieldNames[index], problem: "is not a date")
            }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }

        /// A number field's text; nil when empty.
        private func ascii(_ index: Int) throws(Damage) -> String? {
            let range = fields[index]
            guard !range.isEmpty else { return nil }
            guard range.count <= 40, range.allSatisfy({ line[$0] < 0x80 }) else {
                throw Damage(field: fieldNames[index], problem: "is not a number")
            }
            return String(decoding: UnsafeRawBufferPointer(rebasing: line[range]), as: UTF8.self)
        }

        private func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
    }
}
