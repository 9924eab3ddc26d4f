import Foundation

/// The form an archived order takes in ``FileOrderStore``'s ledger once its
/// retention has passed: the whole order except what nothing depends on.
///
/// Dropped: the receipt (`transaction.receipt`, the bulk of an order and a
/// secret), `metadata` (the app's own data), `hint` (a note) and the
/// transaction's `reason` (only the reconciler reads it, of an incoming
/// transaction or of an open order's flagged renewal, never of one archived). Kept, for
/// good: everything entitlements, balances, subscription status, renewal
/// attribution, duplicate detection and token resolution read — ids, user,
/// product, quantity, status, source, token, every date, the attempt count,
/// the error code, the store's failure reason, the transaction's ids,
/// dates, revocation, quantity, token and environment, and the product's type
/// and subscription group as the order recorded them (without them a product
/// no longer described by the store is guessed from the transaction: a
/// consumable bought once would count as a lifetime purchase).
///
/// One record is one line of 28 tab-separated fields, in this order:
///
/// ```
/// id  user  product  quantity  status  source  token  created  updated  paymentBegan
/// paymentFinished  attempts  nextAttempt  errorCode  failureReason  finished
/// tx.id  tx.original  tx.product  tx.purchased  tx.expires  tx.revoked  tx.reason
/// tx.quantity  tx.token  tx.environment  productType  group
/// ```
///
/// Segments of version 1 hold lines of the first 26 fields only; they are read
/// with no type or group, as those orders were compacted.
///
/// A string is written `=` followed by its UTF-8 bytes with `%`, tab, line
/// feed and carriage return escaped as `%25`, `%09`, `%0A`, `%0D`; an empty
/// field is a missing value (for `tx.original`, `tx.product`, `tx.quantity`
/// and `tx.token`: the same as the order's, or the transaction's own id; a
/// `tx.token` of `-` is none). Numbers are decimal; dates are seconds since
/// the Foundation reference date, written in the shortest form that reads
/// back to the same `Double`. Without a transaction, the ten `tx.` fields are
/// empty. A typical record is about 200 bytes, and reading one takes a few
/// microseconds, which is why this is not JSON: a launch reads every record.
enum CompactOrderRecord {
    /// The names of the fields, in line order (for error messages).
    static let fieldNames = [
        "id", "user", "product", "quantity", "status", "source", "token", "created", "updated", "paymentBegan",
        "paymentFinished", "attempts", "nextAttempt", "errorCode", "failureReason", "finished",
        "tx.id", "tx.original", "tx.product", "tx.purchased", "tx.expires", "tx.revoked", "tx.reason",
        "tx.quantity", "tx.token", "tx.environment", "productType", "group",
    ]

    /// The fields of a line written in a version 1 segment: all but the product type and group.
    static let version1FieldCount = 26

    /// The order as the ledger keeps it: receipt empty, no metadata, no hint.
    static func compact(_ order: Order) -> Order {
        var compact = order
        compact.schemaVersion = Order.currentSchemaVersion
        compact.metadata = [:]
        compact.hint = nil
        compact.transaction?.receipt = Data()
        compact.transaction?.reason = nil
        return compact
    }

    /// The record of `order`, as one line ending in a line feed.
    static func line(for order: Order) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        var isFirst = true
        func field(_ write: (inout [UInt8]) -> Void) {
            if !isFirst { out.append(tab) }
            isFirst = false
            write(&out)
        }
        func string(_ value: String?) { field { if let value { appendString(value, to: &$0) } } }
        func number(_ value: Int?) { field { if let value { $0 += Array(String(value).utf8) } } }
        func date(_ value: Date?) { field { if let value { $0 += Array(String(value.timeIntervalSinceReferenceDate).utf8) } } }

        string(order.id)
        string(order.userID)
        string(order.productID)
        number(order.quantity)
        string(order.status.rawValue)
        string(order.source.rawValue)
        string(order.token)
        date(order.createdAt)
        date(order.updatedAt)
        date(order.paymentBeganAt)
        date(order.paymentFinishedAt)
        number(order.verificationAttempts)
        date(order.nextAttemptAt)
        string(order.lastErrorCode?.rawValue)
        string(order.storeFailureReason?.rawValue)
        date(order.finishedAt)
        let transaction = order.transaction
        string(transaction?.id)
        string(transaction.flatMap { $0.originalID == $0.id ? nil : $0.originalID })
        string(transaction.flatMap { $0.productID == order.productID ? nil : $0.productID })
        date(transaction?.purchaseDate)
        date(transaction?.expirationDate)
        date(transaction?.revocationDate)
        string(transaction?.revocationReason?.rawValue)
        number(transaction.flatMap { $0.quantity == order.quantity ? nil : $0.quantity })
        field { out in
            guard let transaction, transaction.orderToken != order.token else { return }
            if let token = transaction.orderToken { appendString(token, to: &out) } else { out.append(0x2D) }  // "-"
        }
        string(transaction?.environment.rawValue)
        string(order.productType?.rawValue)
        string(order.subscriptionGroupID)
        out.append(lineFeed)
        return out
    }

    static let tab: UInt8 = 0x09
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let percent: UInt8 = 0x25
    static let present: UInt8 = 0x3D  // "="

    /// Appends `=` and the escaped UTF-8 bytes of `value`.
    private static func appendString(_ value: String, to out: inout [UInt8]) {
        out.append(present)
        for byte in value.utf8 {
            switch byte {
            case percent, tab, lineFeed, carriageReturn:
                out += [percent, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            default:
                out.append(byte)
            }
        }
    }

    static let hexDigits = Array("0123456789ABCDEF".utf8)
}
