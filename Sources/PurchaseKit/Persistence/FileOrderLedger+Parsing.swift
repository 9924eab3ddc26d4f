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
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .deferredToDate
        var records: [Order] = []
        var damaged: [DamagedLine] = []
        var headerIsValid = false
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (offset, slice) in lines.enumerated() {
            let bytes = Data(slice)
            let number = offset + 1
            if offset == 0, let header = try? decoder.decode(Header.self, from: bytes), header.format == Self.header.format {
                guard header.version <= Self.header.version else { return .newerVersion(header.version) }
                headerIsValid = true
                continue
            }
            if bytes.isEmpty { continue }  // The end of the file, or a blank line.
            do {
                records.append(try decoder.decode(CompactOrderRecord.self, from: bytes).order)
            } catch let error as DecodingError {
                damaged.append(DamagedLine(number: number, bytes: bytes,
                                           error: .corrupt(error, what: "line \(number) of the ledger segment '\(label)'")))
            } catch {
                damaged.append(DamagedLine(number: number, bytes: bytes, error: PurchaseKitError(
                    .persistenceCorrupt, "Line \(number) of the ledger segment '\(label)' is not valid JSON.",
                    advice: "The line was set aside; the other records are unaffected.", underlying: error)))
            }
        }
        return .lines(records: records, damaged: damaged, headerIsValid: headerIsValid)
    }
}
