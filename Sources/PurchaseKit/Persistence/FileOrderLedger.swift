import Foundation

/// The compacted orders of a ``FileOrderStore``, in memory, and the format of
/// the segment files that hold them on disk.
///
/// The ledger is a folder of segments, `ledger/segment-000001.tsv`,
/// `segment-000002.tsv`, ...: each a header line
/// `{"format":"purchasekit.order-ledger","version":2}` followed by one
/// ``CompactOrderRecord`` per line. An order has at most one record. A segment
/// is only ever replaced whole (a temporary file, flushed and renamed over it),
/// never appended to in place, so a crash leaves it at its old or its new
/// content; new records fill the last segment up to ``segmentTargetSize`` and
/// then start the next one, so no write costs more than one segment.
struct FileOrderLedger {
    /// The first line of every segment. A newer version is left alone, unread.
    struct Header: Codable, Equatable {
        var format: String
        var version: Int
    }

    /// One segment file as the ledger knows it.
    struct Segment: Equatable {
        /// The orders whose record is in this segment, in file order.
        var ids: [String] = []
        /// Its size on disk (or the size it will have once written).
        var byteCount = 0
        /// False for a segment that could not be read or is from a newer version: never rewritten.
        var isWritable = true
    }

    /// Version 2 added the product type and group to each record; version 1
    /// segments are read, and written as version 2 when they next change.
    static let header = Header(format: "purchasekit.order-ledger", version: 2)
    static let segmentPrefix = "segment-"
    static let segmentSuffix = ".tsv"
    /// New records go to the last segment until it would grow past this many bytes.
    static let segmentTargetSize = 512 * 1024
    /// Segments are read up to this size, or the store's `maximumFileSize` if larger.
    /// A record larger than ``segmentTargetSize`` gets a segment of its own.
    static let segmentReadLimit = 4 * 1024 * 1024

    private(set) var segments: [Int: Segment] = [:]
    /// The compact form of every order that has a record, by order id.
    private(set) var records: [String: Order] = [:]
    /// The segment holding each order's record.
    private(set) var segmentOf: [String: Int] = [:]

    /// The file name of segment `number`.
    static func segmentName(_ number: Int) -> String {
        let digits = String(number)
        return segmentPrefix + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + segmentSuffix
    }

    /// The number of a segment file name; nil for any other name.
    static func segmentNumber(_ name: String) -> Int? {
        guard name.hasPrefix(segmentPrefix), name.hasSuffix(segmentSuffix) else { return nil }
        let digits = name.dropFirst(segmentPrefix.count).dropLast(segmentSuffix.count)
        guard digits.count >= 6, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let number = Int(digits), number > 0, segmentName(number) == name else { return nil }
        return number
    }

    // MARK: Encoding

    /// The whole content of segment `number`, as it should be on disk.
    func content(ofSegment number: Int) -> Data {
        var bytes = [UInt8](Self.headerLine)
        for id in segments[number]?.ids ?? [] {
            if let order = records[id] { bytes += CompactOrderRecord.line(for: order) }
        }
        return Data(bytes)
    }

    /// The header line every segment starts with.
    static let headerLine = Data(Array(#"{"format":"purchasekit.order-ledger","version":2}"#.utf8) + [0x0A])

    // MARK: Changes

    /// Adds or replaces the record of `order` (in compact form). A replaced
    /// record stays in its segment; a new one goes to the last segment if it
    /// has room, or starts a new one. Returns the segment that changed.
    @discardableResult
    mutating func put(_ order: Order) -> Int {
        let compact = CompactOrderRecord.compact(order)
        if let number = segmentOf[order.id] {
            records[order.id] = compact
            return number
        }
        let size = CompactOrderRecord.line(for: compact).count
        let last = segments.keys.max() ?? 0
        var number = last + 1
        if let tail = segments[last], tail.isWritable, tail.ids.isEmpty || tail.byteCount + size <= Self.segmentTargetSize {
            number = last
        }
        segments[number, default: Segment(byteCount: Self.headerLine.count)].ids.append(order.id)
        segments[number]?.byteCount += size
        records[order.id] = compact
        segmentOf[order.id] = number
        return number
    }

    /// Drops the record of an order. Returns the segment that changed, if any.
    @discardableResult
    mutating func remove(id: String) -> Int? {
        guard let number = segmentOf[id] else { return nil }
        segments[number]?.ids.removeAll { $0 == id }
        records[id] = nil
        segmentOf[id] = nil
        return number
    }

    /// Notes the size a segment has on disk now that it was written.
    mutating func noteWritten(segment number: Int, byteCount: Int) {
        segments[number]?.byteCount = byteCount
    }

    /// Puts segment `number` back as it is in `old`: the change to it could not be written.
    mutating func revert(segment number: Int, to old: FileOrderLedger) {
        for id in segments[number]?.ids ?? [] where segmentOf[id] == number {
            records[id] = old.records[id]
            segmentOf[id] = old.segmentOf[id]
        }
        for id in old.segments[number]?.ids ?? [] {
            records[id] = old.records[id]
            segmentOf[id] = number
        }
        segments[number] = old.segments[number]
    }

    /// Forgets an empty segment whose file was deleted.
    mutating func dropSegment(_ number: Int) {
        guard segments[number]?.ids.isEmpty == true else { return }
        segments[number] = nil
    }

    /// Records a segment as read from disk, with the records it holds.
    mutating func adopt(segment number: Int, _ segment: Segment, records loaded: [Order]) {
        segments[number] = segment
        for order in loaded {
            records[order.id] = order
            segmentOf[order.id] = number
        }
    }
}
