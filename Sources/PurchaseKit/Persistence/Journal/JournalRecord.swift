import Foundation

/// The records of ``JournalOrderStore``'s files, inside their frames (see
/// ``JournalFrame``). The first byte of a payload says what it is:
///
/// | kind | payload after the kind byte | meaning |
/// |---|---|---|
/// | 1 header | format version (1), file kind (1 journal, 2 snapshot), generation (u64), orders that follow (u64; 0 in a journal) | first record of every file |
/// | 2 put | place (1 open, 2 archived, 3 compacted), the order (``OrderBinaryCoding``) | the order's current version |
/// | 3 archive | order id | the open order moves to the archive |
/// | 4 remove | order id | the order is deleted |
/// | 5 end | number of put records (u64) | last record of a snapshot |
/// | 6 spend | spend id, user id, balance key, amount, date, balance after (``ConsumableSpend``) | a spend of consumable units |
/// | 7 renewal | user id, original transaction id, state (1 active, 2 grace period, 3 billing retry, 4 expired), will renew (active) or grace end (grace period), as-of date | how the store last saw a subscription's renewal (``RenewalStateRecord``) |
///
/// A journal holds a header, then puts (open, or archived: an order saved
/// straight into the archive when it comes to rest), archives, removes,
/// spends and renewal states, in the order they happened. A snapshot holds a
/// header, one remove record per order id ever removed (so that an import of
/// older files cannot bring it back), one put per order, one spend record per
/// spend, one renewal record per subscription, and the end record, which
/// tells a whole snapshot from one that lost its tail. Files written before
/// spends, renewal states and a snapshot's removes existed hold none and read as before.
enum JournalRecord {
    static let formatVersion: UInt8 = 1

    enum Kind: UInt8 {
        case header = 1, put = 2, archive = 3, remove = 4, end = 5, spend = 6, renewal = 7
    }

    enum FileKind: UInt8 {
        case journal = 1, snapshot = 2
    }

    /// A record as read back. Ranges are into the file's bytes.
    enum Parsed {
        case header(format: UInt8, kind: FileKind, generation: UInt64, orders: UInt64)
        case put(JournalIndex.Place, order: Range<Int>)
        case archive(id: String)
        case remove(id: String)
        case end(count: UInt64)
        case spend(ConsumableSpend)
        case renewal(RenewalStateRecord)
    }

    // MARK: Writing

    static func header(_ kind: FileKind, generation: UInt64, orders: UInt64 = 0, into writer: inout ByteWriter) {
        let start = JournalFrame.start(&writer)
        writer.byte(Kind.header.rawValue)
        writer.byte(formatVersion)
        writer.byte(kind.rawValue)
        writer.uint64(generation)
        writer.uint64(orders)
        JournalFrame.finish(&writer, from: start)
    }

    static func put(_ order: Order, place: JournalIndex.Place, into writer: inout ByteWriter) {
        let start = JournalFrame.start(&writer)
        writer.byte(Kind.put.rawValue)
        writer.byte(place.rawValue)
        OrderBinaryCoding.encode(order, into: &writer)
        JournalFrame.finish(&writer, from: start)
    }

    /// A put of an order kept encoded (archived and compacted orders).
    static func put(encoded order: Data, place: JournalIndex.Place, into writer: inout ByteWriter) {
        let start = JournalFrame.start(&writer)
        writer.byte(Kind.put.rawValue)
        writer.byte(place.rawValue)
        writer.bytes.append(contentsOf: order)
        JournalFrame.finish(&writer, from: start)
    }

    static func archive(id: String, into writer: inout ByteWriter) {
        let start = JournalFrame.start(&writer)
        writer.byte(Kind.archive.rawValue)
        writer.string(id)
        JournalFrame.finish(&writer, from: start)
    }

    static func remove(id: String, into writer: inout ByteWriter) {
        let start = JournalFrame.start(&writer)
        writer.byte(Kind.remove.rawValue)
        writer.string(id)
        JournalFrame.finish(&writer, from: start)
    }

    static func spend(_ spend: ConsumableSpend, into writer: inout ByteWriter) {
        let start = JournalFrame.start(&writer)
        writer.byte(Kind.spend.rawValue)
        writer.string(spend.id)
        writer.string(spend.userID)
        writer.string(spend.balanceKey)
        writer.signed(spend.amount)
        writer.date(spend.date)
        writer.signed(spend.balanceAfter)
        JournalFrame.finish(&writer, from: start)
    }

    static func renewal(_ record: RenewalStateRecord, into writer: inout ByteWriter) {
        let start = JournalFrame.start(&writer)
        writer.byte(Kind.renewal.rawValue)
        writer.string(record.userID)
        writer.string(record.originalTransactionID)
        switch record.state {
        case .active(let willRenew):
            writer.byte(1)
            writer.byte(willRenew ? 1 : 0)
        case .inGracePeriod(let until):
            writer.byte(2)
            writer.date(until)
        case .inBillingRetry:
            writer.byte(3)
        case .expired:
            writer.byte(4)
        }
        writer.date(record.asOf)
        JournalFrame.finish(&writer, from: start)
    }

    static func end(count: UInt64, into writer: inout ByteWriter) {
        let start = JournalFrame.start(&writer)
        writer.byte(Kind.end.rawValue)
        writer.uint64(count)
        JournalFrame.finish(&writer, from: start)
    }

    // MARK: Reading

    /// Reads the record whose payload is `range` of `bytes`.
    static func parse(_ bytes: UnsafeRawBufferPointer, payload range: Range<Int>) throws(BinaryDamage) -> Parsed {
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: bytes[range]))
        let rawKind = try reader.byte("kind")
        guard let kind = Kind(rawValue: rawKind) else { throw BinaryDamage("the record kind \(rawKind) is unknown") }
        let parsed: Parsed
        switch kind {
        case .header:
            let format = try reader.byte("format version")
            // A newer format may lay its header out differently: report it before reading further.
            guard format <= formatVersion else { return .header(format: format, kind: .journal, generation: 0, orders: 0) }
            let rawFile = try reader.byte("file kind")
            guard let file = FileKind(rawValue: rawFile) else { throw BinaryDamage("the file kind \(rawFile) is unknown") }
            let generation = try reader.uint64("generation")
            parsed = .header(format: format, kind: file, generation: generation, orders: try reader.uint64("orders"))
        case .put:
            let rawPlace = try reader.byte("place")
            guard let place = JournalIndex.Place(rawValue: rawPlace) else { throw BinaryDamage("the place \(rawPlace) is unknown") }
            return .put(place, order: (range.lowerBound + 2)..<range.upperBound)
        case .archive:
            parsed = .archive(id: try reader.string("id"))
        case .remove:
            parsed = .remove(id: try reader.string("id"))
        case .end:
            parsed = .end(count: try reader.uint64("count"))
        case .spend:
            let id = try reader.string("spend id")
            let userID = try reader.string("user id")
            let balanceKey = try reader.string("balance key")
            let amount = try reader.signed("amount")
            let date = try reader.date("date")
            let balanceAfter = try reader.signed("balance after")
            guard amount > 0, balanceAfter >= 0 else { throw BinaryDamage("the spend's amount or balance is negative") }
            parsed = .spend(ConsumableSpend(id: id, userID: userID, balanceKey: balanceKey, amount: amount,
                                            date: date, balanceAfter: balanceAfter))
        case .renewal:
            let userID = try reader.string("user id")
            let originalID = try reader.string("original transaction id")
            let state: SubscriptionRenewalState
            switch try reader.byte("renewal state") {
            case 1:
                let flag = try reader.byte("will renew")
                guard flag <= 1 else { throw BinaryDamage("the will-renew flag \(flag) is unknown") }
                state = .active(willRenew: flag == 1)
            case 2: state = .inGracePeriod(until: try reader.date("grace period end"))
            case 3: state = .inBillingRetry
            case 4: state = .expired
            case let other: throw BinaryDamage("the renewal state \(other) is unknown")
            }
            parsed = .renewal(RenewalStateRecord(userID: userID, originalTransactionID: originalID, state: state,
                                                 asOf: try reader.date("as of")))
        }
        guard reader.isAtEnd else { throw BinaryDamage("bytes follow the end of the record") }
        return parsed
    }
}
