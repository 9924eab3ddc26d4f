import Foundation

extension FileOrderLedger {
    /// What a segment file holds.
    enum ParsedSegment {
        /// Written by a newer PurchaseKit: left alone, unread, never rewritten.
        case newerVersion(Int)
        /// The records that could be read, and every line that could not.
        case lines(records: [Order], damaged: [DamagedLine], headerIsValid: Bool)
    }

    /// A line of a segment that is not a record.
    struct DamagedLine {
        /// Counted from 1, the header being line 1.
        var number: Int
        var bytes: Data
        /// Why, naming the field at fault but never a value.
        var error: PurchaseKitError
    }

    /// Reads a segment's content. Never fails: what cannot be read is reported line by line.
    ///
    /// A segment whose first line is not a header (damaged, or a foreign file)
    /// is read all the same, so that one bad byte does not hide the records
    /// after it; a header naming a newer version stops the reading.
    static func parse(_ data: Data, label: String) -> ParsedSegment {
        data.withUnsafeBytes { bytes in parse(bytes, label: label) }
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer, label: String) -> ParsedSegment {
        var records: [Order] = []
        var damaged: [DamagedLine] = []
        var headerIsValid = false
        // Unknown until a header says it: a segment without one may be of either version.
        var version: Int?
        var start = 0
        var number = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: CompactOrderRecord.lineFeed) ?? bytes.count
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            start = end + 1
            number += 1
            if number == 1 {
                if line.elementsEqual(headerLine.dropLast()) {
                    headerIsValid = true
                    version = Self.header.version
                    continue
                }
                if let header = try? JSONDecoder().decode(Header.self, from: Data(line)), header.format == Self.header.format {
                    guard header.version <= Self.header.version else { return .newerVersion(header.version) }
                    headerIsValid = true
                    version = header.version
                    continue
                }
            }
            if line.isEmpty { continue }  // A blank line.
            do throws(CompactOrderRecord.Damage) {
                // Every record is written with its line feed. A version 1 line ends in a field
                // that cannot be cut short unnoticed; a later one ends in the group, a free
                // string: without its line feed it may have been cut anywhere in it.
                guard end < bytes.count || version == 1 else {
                    throw CompactOrderRecord.Damage(field: nil, problem: "it is torn (it ends without a line feed)")
                }
                records.append(try CompactOrderRecord.decode(line, version: version))
            } catch {
                damaged.append(DamagedLine(number: number, bytes: Data(line), error: PurchaseKitError(
                    .persistenceCorrupt, "Line \(number) of the ledger segment '\(label)' is not a record: \(error.description).",
                    advice: "The line was set aside; the other records are unaffected.")))
            }
        }
        return .lines(records: records, damaged: damaged, headerIsValid: headerIsValid)
    }
}
