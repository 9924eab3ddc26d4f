import Foundation

/// The binary form of an order in ``JournalOrderStore``'s files: every field
/// of ``Order`` and its ``StoreTransaction``, so that an order reads back equal
/// to the one saved, in a fraction of the time JSON takes (a launch reads
/// every stored order).
///
/// Layout, version 1 (numbers little-endian; a string or byte field is a
/// LEB128 length and the UTF-8 bytes; a date is the `Double` bit pattern of its
/// seconds since the reference date; an enumeration is its raw value):
///
/// ```
/// version (1)  presence bits (u32)
/// id  userID  [token]  updatedAt  [transaction.id]        the keys a lookup needs
/// productID  [productType]  [subscriptionGroupID]  quantity (zigzag)  source  status
/// createdAt  [paymentBeganAt]  [paymentFinishedAt]  verificationAttempts
/// [nextAttemptAt]  [hint]  [lastErrorCode]  [storeFailureReason]  [finishedAt]
/// [transaction: originalID  productID  purchaseDate  [expirationDate]  [revocationDate]
///               [revocationReason]  quantity  [orderToken]  receipt  environment  [reason]]
/// metadata count, then key and value pairs in key order
/// ```
///
/// Bracketed fields are present when their bit is set. The keys come first so
/// that an archived order can be indexed without decoding the rest (see
/// ``decodeKeys(_:)``). A version above 1 or an unknown bit is damage: the
/// record is set aside, never half read. The transaction's `reason` came
/// later, as a bit of its own: a record without one reads as before.
enum OrderBinaryCoding {
    static let version: UInt8 = 1

    private enum Bit: UInt32 {
        case token = 0x1, productType = 0x2, subscriptionGroupID = 0x4, paymentBeganAt = 0x8
        case paymentFinishedAt = 0x10, nextAttemptAt = 0x20, hint = 0x40, lastErrorCode = 0x80
        case storeFailureReason = 0x100, finishedAt = 0x200, transaction = 0x400, expirationDate = 0x800
        case revocationDate = 0x1000, revocationReason = 0x2000, orderToken = 0x4000, transactionReason = 0x8000
    }

    private static let knownBits: UInt32 = 0xFFFF

    /// What an index needs of an order.
    struct Keys {
        var id: String
        var userID: String
        var token: String?
        var updatedAt: Date
        var transactionID: String?
        /// The transaction's original id when it is not the transaction's
        /// own (a renewal, a change of tier): see ``Order/laterTransactionOriginalID``.
        var laterTransactionOriginalID: String?
    }

    static func encode(_ order: Order, into out: inout ByteWriter) {
        let transaction = order.transaction
        var bits: UInt32 = 0
        func mark(_ bit: Bit, _ present: Bool) { if present { bits |= bit.rawValue } }
        mark(.token, order.token != nil)
        mark(.productType, order.productType != nil)
        mark(.subscriptionGroupID, order.subscriptionGroupID != nil)
        mark(.paymentBeganAt, order.paymentBeganAt != nil)
        mark(.paymentFinishedAt, order.paymentFinishedAt != nil)
        mark(.nextAttemptAt, order.nextAttemptAt != nil)
        mark(.hint, order.hint != nil)
        mark(.lastErrorCode, order.lastErrorCode != nil)
        mark(.storeFailureReason, order.storeFailureReason != nil)
        mark(.finishedAt, order.finishedAt != nil)
        mark(.transaction, transaction != nil)
        mark(.expirationDate, transaction?.expirationDate != nil)
        mark(.revocationDate, transaction?.revocationDate != nil)
        mark(.revocationReason, transaction?.revocationReason != nil)
        mark(.orderToken, transaction?.orderToken != nil)
        mark(.transactionReason, transaction?.reason != nil)

        out.byte(version)
        out.uint32(bits)
        out.string(order.id)
        out.string(order.userID)
        if let token = order.token { out.string(token) }
        out.date(order.updatedAt)
        if let transaction { out.string(transaction.id) }
        out.string(order.productID)
        if let productType = order.productType { out.string(productType.rawValue) }
        if let group = order.subscriptionGroupID { out.string(group) }
        out.signed(order.quantity)
        out.string(order.source.rawValue)
        out.string(order.status.rawValue)
        out.date(order.createdAt)
        if let date = order.paymentBeganAt { out.date(date) }
        if let date = order.paymentFinishedAt { out.date(date) }
        out.signed(order.verificationAttempts)
        if let date = order.nextAttemptAt { out.date(date) }
        if let hint = order.hint { out.string(hint) }
        if let code = order.lastErrorCode { out.string(code.rawValue) }
        if let reason = order.storeFailureReason { out.string(reason.rawValue) }
        if let date = order.finishedAt { out.date(date) }
        if let transaction {
            out.string(transaction.originalID)
            out.string(transaction.productID)
            out.date(transaction.purchaseDate)
            if let date = transaction.expirationDate { out.date(date) }
            if let date = transaction.revocationDate { out.date(date) }
            if let reason = transaction.revocationReason { out.string(reason.rawValue) }
            out.signed(transaction.quantity)
            if let token = transaction.orderToken { out.string(token) }
            out.data(transaction.receipt)
            out.string(transaction.environment.rawValue)
            if let reason = transaction.reason { out.string(reason.rawValue) }
        }
        out.varint(UInt64(order.metadata.count))
        guard !order.metadata.isEmpty else { return }
        // In key order, so that equal orders are equal bytes.
        for key in order.metadata.keys.sorted() {
            out.string(key)
            out.string(order.metadata[key] ?? "")
        }
    }

    /// The whole order. Throws when the bytes are not an order of a known version.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(BinaryDamage) -> Order {
        var reader = ByteReader(bytes)
        let bits = try header(&reader)
        func has(_ bit: Bit) -> Bool { bits & bit.rawValue != 0 }
        let id = try reader.string("id")
        let userID = try reader.string("userID")
        let token = has(.token) ? try reader.string("token") : nil
        let updatedAt = try reader.date("updatedAt")
        let transactionID = has(.transaction) ? try reader.string("transaction.id") : nil
        let productID = try reader.string("productID")
        // As in the JSON form, a product type this build does not know reads as unknown.
        let productType = has(.productType) ? ProductType(rawValue: try reader.string("productType")) : nil
        let group = has(.subscriptionGroupID) ? try reader.string("subscriptionGroupID") : nil
        let quantity = try reader.signed("quantity")
        let source = try reader.value(OrderSource.self, "source")
        let status = try reader.value(OrderStatus.self, "status")
        var order = Order(id: id, productID: productID, userID: userID, token: token, quantity: quantity,
                          productType: productType, subscriptionGroupID: group, source: source, status: status,
                          createdAt: try reader.date("createdAt"))
        order.updatedAt = updatedAt
        if has(.paymentBeganAt) { order.paymentBeganAt = try reader.date("paymentBeganAt") }
        if has(.paymentFinishedAt) { order.paymentFinishedAt = try reader.date("paymentFinishedAt") }
        let attempts = try reader.signed("verificationAttempts")
        order.verificationAttempts = min(max(0, attempts), Order.maximumVerificationAttempts)
        if has(.nextAttemptAt) { order.nextAttemptAt = try reader.date("nextAttemptAt") }
        if has(.hint) { order.hint = try reader.string("hint") }
        if has(.lastErrorCode) { order.lastErrorCode = PurchaseKitError.Code(rawValue: try reader.string("lastErrorCode")) }
        if has(.storeFailureReason) { order.storeFailureReason = try reader.value(StoreFailureReason.self, "storeFailureReason") }
        if has(.finishedAt) { order.finishedAt = try reader.date("finishedAt") }
        if let transactionID {
            let originalID = try reader.string("transaction.originalID")
            let productID = try reader.string("transaction.productID")
            let purchaseDate = try reader.date("transaction.purchaseDate")
            let expiration = has(.expirationDate) ? try reader.date("transaction.expirationDate") : nil
            let revocation = has(.revocationDate) ? try reader.date("transaction.revocationDate") : nil
            let reason = has(.revocationReason) ? try reader.value(RevocationReason.self, "transaction.revocationReason") : nil
            let quantity = try reader.signed("transaction.quantity")
            let orderToken = has(.orderToken) ? try reader.string("transaction.orderToken") : nil
            let receipt = try reader.data("transaction.receipt")
            let environment = try reader.value(StoreEnvironment.self, "transaction.environment")
            let why = has(.transactionReason) ? try reader.value(TransactionReason.self, "transaction.reason") : nil
            order.transaction = StoreTransaction(
                id: transactionID, originalID: originalID, productID: productID, purchaseDate: purchaseDate,
                expirationDate: expiration, revocationDate: revocation, revocationReason: reason, quantity: quantity,
                orderToken: orderToken, receipt: receipt, environment: environment, reason: why)
        }
        let count = try reader.varint("metadata")
        guard count <= UInt64(reader.bytes.count) else { throw BinaryDamage("the field 'metadata' runs past the end of the record") }
        if count > 0 {
            var metadata = [String: String](minimumCapacity: Int(count))
            for _ in 0..<count {
                let key = try reader.string("metadata key")
                metadata[key] = try reader.string("metadata value")
            }
            order.metadata = metadata
        }
        guard reader.isAtEnd else { throw BinaryDamage("bytes follow the end of the order") }
        return order
    }

    /// Only the keys, for indexing an order that is not decoded until asked for.
    static func decodeKeys(_ bytes: UnsafeRawBufferPointer) throws(BinaryDamage) -> Keys {
        var reader = ByteReader(bytes)
        let bits = try header(&reader)
        let id = try reader.string("id")
        let userID = try reader.string("userID")
        let token = bits & Bit.token.rawValue != 0 ? try reader.string("token") : nil
        let updatedAt = try reader.date("updatedAt")
        let transactionID = bits & Bit.transaction.rawValue != 0 ? try reader.string("transaction.id") : nil
        var keys = Keys(id: id, userID: userID, token: token, updatedAt: updatedAt, transactionID: transactionID)
        if let transactionID {
            let original = try originalTransactionID(after: &reader, bits: bits)
            if original != transactionID { keys.laterTransactionOriginalID = original }
        }
        return keys
    }

    /// The transaction's original id, read by skipping the order's fields
    /// between the keys and the transaction (no string made but this one).
    private static func originalTransactionID(after reader: inout ByteReader, bits: UInt32) throws(BinaryDamage) -> String {
        func has(_ bit: Bit) -> Bool { bits & bit.rawValue != 0 }
        try reader.skipString("productID")
        if has(.productType) { try reader.skipString("productType") }
        if has(.subscriptionGroupID) { try reader.skipString("subscriptionGroupID") }
        _ = try reader.varint("quantity")
        try reader.skipString("source")
        try reader.skipString("status")
        try reader.skipDate("createdAt")
        if has(.paymentBeganAt) { try reader.skipDate("paymentBeganAt") }
        if has(.paymentFinishedAt) { try reader.skipDate("paymentFinishedAt") }
        _ = try reader.varint("verificationAttempts")
        if has(.nextAttemptAt) { try reader.skipDate("nextAttemptAt") }
        if has(.hint) { try reader.skipString("hint") }
        if has(.lastErrorCode) { try reader.skipString("lastErrorCode") }
        if has(.storeFailureReason) { try reader.skipString("storeFailureReason") }
        if has(.finishedAt) { try reader.skipDate("finishedAt") }
        return try reader.string("transaction.originalID")
    }

    private static func header(_ reader: inout ByteReader) throws(BinaryDamage) -> UInt32 {
        let found = try reader.byte("version")
        guard found == version else {
            throw BinaryDamage(found > version
                ? "the order was written by a newer PurchaseKit (encoding version \(found))"
                : "the encoding version \(found) is not one PurchaseKit wrote")
        }
        let bits = try reader.uint32("presence bits")
        guard bits & ~knownBits == 0 else { throw BinaryDamage("the field 'presence bits' names fields this version does not know") }
        return bits
    }
}

extension OrderBinaryCoding.Keys {
    /// The keys of an order in hand: what ``OrderBinaryCoding/decodeKeys(_:)`` reads back from its encoding.
    init(_ order: Order) {
        self.init(id: order.id, userID: order.userID, token: order.token, updatedAt: order.updatedAt,
                  transactionID: order.transactionID, laterTransactionOriginalID: order.laterTransactionOriginalID)
    }
}
