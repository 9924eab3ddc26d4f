import Foundation

/// Applies the records of one journal or snapshot file to an index, in file
/// order, and notes what could not be applied. Never throws: damage is data.
struct JournalReplay {
    /// Bytes of the file that are not a record, or a record that cannot be read.
    struct Damage {
        var range: Range<Int>
        var problem: PurchaseKitError
    }

    let label: String
    let kind: JournalRecord.FileKind
    let maximumRecordSize: Int
    private(set) var damaged: [Damage] = []
    /// The format version of a file written by a newer PurchaseKit: nothing of it was applied.
    private(set) var newerFormat: UInt8?
    /// For a snapshot that lost its end without visible damage: what to report.
    private(set) var missingEnd: PurchaseKitError?
    /// Where the last whole record ends (a journal's reserved zeros come after).
    private(set) var endOfRecords = 0

    init(label: String, kind: JournalRecord.FileKind, maximumRecordSize: Int) {
        self.label = label
        self.kind = kind
        self.maximumRecordSize = maximumRecordSize
    }

    mutating func apply(_ bytes: UnsafeRawBufferPointer, to index: inout JournalIndex) {
        var isFirst = true
        var puts: UInt64 = 0
        var end: UInt64?
        // The kind byte and the place byte come before the order.
        let scan = JournalFrame.scan(bytes, maximumPayload: maximumRecordSize + 2) { payload in
            defer { isFirst = false }
            guard newerFormat == nil else { return }
            do throws(BinaryDamage) {
                switch try JournalRecord.parse(bytes, payload: payload) {
                case .header(let format, _, _, let orders):
                    if isFirst, format > JournalRecord.formatVersion { newerFormat = format }
                    // Room for every order at once: a launch does not grow the tables step by step.
                    if isFirst, orders > 0 { index.reserveCapacity(index.entries.count + Int(min(orders, UInt64(bytes.count / 16)))) }
                case .put(let place, let range):
                    try put(place, UnsafeRawBufferPointer(rebasing: bytes[range]), into: &index)
                    puts += 1
                case .archive(let id):
                    index.archive(id: id)
                case .remove(let id):
                    index.remove(id: id)
                    index.markRemoved(id)
                case .end(let count):
                    end = count
                case .spend(let spend):
                    index.recordSpend(spend)
                case .renewal(let record):
                    index.saveRenewalState(record)
                }
            } catch {
                let frame = (payload.lowerBound - JournalFrame.headerSize)..<payload.upperBound
                damaged.append(Damage(range: frame, problem: PurchaseKitError(
                    .persistenceCorrupt,
                    "The record at byte \(frame.lowerBound) of '\(label)' could not be read: \(error.description).",
                    advice: "The other records are unaffected.")))
            }
        }
        endOfRecords = scan.endOfRecords
        for gap in scan.damaged {
            let what = gap.upperBound == bytes.count
                ? "at its end are not a whole record (a write cut short by a crash, or damage)"
                : "are not a record (damage)"
            damaged.insert(Damage(range: gap, problem: PurchaseKitError(
                .persistenceCorrupt, "\(gap.count) bytes from byte \(gap.lowerBound) of '\(label)' \(what).",
                advice: "Every whole record before and after them was kept.")), at: damaged.firstIndex { $0.range.lowerBound > gap.lowerBound } ?? damaged.count)
        }
        guard kind == .snapshot, newerFormat == nil, damaged.isEmpty else { return }
        if end == nil {
            missingEnd = PurchaseKitError(
                .persistenceCorrupt, "The snapshot '\(label)' ends after \(puts) orders, without its last record: orders after them are missing.",
                advice: "The file was cut short by something other than PurchaseKit; the orders it still holds were kept.")
        } else if let end, end != puts {
            missingEnd = PurchaseKitError(
                .persistenceCorrupt, "The snapshot '\(label)' holds \(puts) orders of the \(end) it was written with.",
                advice: "The file was changed by something other than PurchaseKit; the orders it still holds were kept.")
        }
    }

    /// An open order is decoded whole; an archived or compacted one is checked
    /// whole once and kept in its binary form.
    private func put(_ place: JournalIndex.Place, _ order: UnsafeRawBufferPointer, into index: inout JournalIndex) throws(BinaryDamage) {
        if place == .open {
            index.putOpen(try OrderBinaryCoding.decode(order))
            return
        }
        _ = try OrderBinaryCoding.decode(order)
        index.putStored(try OrderBinaryCoding.decodeKeys(order), bytes: Data(order), place: place)
    }
}
