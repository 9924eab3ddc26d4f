import Foundation

extension FileOrderStore {
    /// Reads every segment of the ledger into ``ledger`` and the index. Damaged
    /// lines are copied to the quarantine folder and their segment rewritten
    /// without them; a segment that holds nothing usable is moved there whole;
    /// one from a newer version, or one that cannot be read, is left in place
    /// and never written to. Never fails: everything is a problem for the report.
    func loadLedger(_ names: [String], problems: inout [PurchaseKitError], changed: inout Set<FileOrderIndex.Place>) {
        var rewrite: Set<Int> = []
        var damagedLines: [Int: [FileOrderLedger.DamagedLine]] = [:]
        let limit = max(configuration.maximumFileSize, FileOrderLedger.segmentReadLimit)
        for name in names {
            if FileNameCoding.isTemporary(name) {
                if let problem = removeLeftover(name, in: .ledger, changed: &changed) { problems.append(problem) }
                continue
            }
            if name.hasPrefix(".") { continue }
            let label = "ledger/\(name)"
            guard let number = FileOrderLedger.segmentNumber(name) else {
                changed.insert(.ledger)
                problems.append(quarantine(name, in: .ledger, damage: PurchaseKitError(
                    .persistenceCorrupt, "The file '\(label)' is not a segment of the ledger.",
                    advice: "Something other than PurchaseKit put it there; it was moved to the quarantine folder.")))
                continue
            }
            let data: Data
            do throws(FileSystemError) {
                switch try readEntry(name, in: .ledger, limit: limit) {
                case .data(let contents):
                    data = contents
                case .unusable(let kind):
                    changed.insert(.ledger)
                    problems.append(quarantine(name, in: .ledger, damage: .unusableEntry(label, kind)))
                    continue
                }
            } catch {
                // Left as it is: never rewritten, and new records go to later segments.
                ledger.adopt(segment: number, .init(isWritable: false), records: [])
                unreadOrderFiles.insert(label)
                problems.append(.readFailed(error, "The ledger segment '\(label)' could not be read"))
                continue
            }
            switch FileOrderLedger.parse(data, label: label) {
            case .newerVersion(let version):
                ledger.adopt(segment: number, .init(isWritable: false), records: [])
                // Its orders exist but are not indexed: a lookup that finds none must not answer "none".
                unreadOrderFiles.insert(label)
                problems.append(PurchaseKitError(
                    .persistenceCorrupt, "The ledger segment '\(label)' was written by a newer PurchaseKit (format version \(version)); it was left in place unread.",
                    advice: "Update the app: the orders compacted into it are missing until a version that reads it runs, and a lookup that finds no order throws."))
            case .lines(let records, let damaged, let headerIsValid):
                guard !records.isEmpty || (damaged.isEmpty && headerIsValid) else {
                    changed.insert(.ledger)
                    problems.append(quarantine(name, in: .ledger, damage: damaged.first?.error ?? PurchaseKitError(
                        .persistenceCorrupt, "The ledger segment '\(label)' holds no record and no header.",
                        advice: "It was moved to the quarantine folder; the other segments are unaffected.")))
                    continue
                }
                var kept: [Order] = []
                var seen: Set<String> = []
                for var record in records {
                    // An order has one record; a second one (a copy made by hand, or a
                    // bug) loses to the newer, and the segment that held the loser is rewritten.
                    guard seen.insert(record.id).inserted else { rewrite.insert(number); continue }
                    if let other = ledger.segmentOf[record.id], let existing = ledger.records[record.id] {
                        guard record.updatedAt > existing.updatedAt else {
                            if let merged = Self.withProductFacts(of: record, in: existing) { rewrite.insert(ledger.put(merged)) }
                            rewrite.insert(number)
                            continue
                        }
                        if let merged = Self.withProductFacts(of: existing, in: record) {
                            record = merged
                            rewrite.insert(number)
                        }
                        ledger.remove(id: record.id)
                        rewrite.insert(other)
                    }
                    kept.append(record)
                }
                ledger.adopt(segment: number, .init(ids: kept.map(\.id), byteCount: data.count), records: kept)
                if !damaged.isEmpty || !headerIsValid { rewrite.insert(number) }
                if !damaged.isEmpty { damagedLines[number] = damaged }
            }
        }
        for number in rewrite.sorted() {
            repairSegment(number, setAside: damagedLines[number] ?? [], problems: &problems)
        }
        // In file order, so that the index is the same at every launch.
        for number in ledger.segments.keys.sorted() {
            for id in ledger.segments[number]?.ids ?? [] {
                if let record = ledger.records[id] { index.insert(record, fileName: "", place: .ledger) }
            }
        }
    }

    /// `record` with the product type and group of `other`, a record of the same
    /// order, where it has none; nil when that adds nothing. An order's type and
    /// group never change once known, but a version 1 record has neither: the
    /// newer record of an order changed by an older PurchaseKit (which compacts
    /// without them) would otherwise drop what the older record kept.
    private static func withProductFacts(of other: Order, in record: Order) -> Order? {
        var merged = record
        if merged.productType == nil { merged.productType = other.productType }
        if merged.subscriptionGroupID == nil { merged.subscriptionGroupID = other.subscriptionGroupID }
        return merged == record ? nil : merged
    }

    /// Copies a segment's damaged lines to the quarantine folder, then rewrites
    /// the segment with the records it keeps. When the copy fails the segment is
    /// left as it is, so that no byte is lost; the next launch tries again.
    private func repairSegment(_ number: Int, setAside damaged: [FileOrderLedger.DamagedLine],
                               problems: inout [PurchaseKitError]) {
        let name = FileOrderLedger.segmentName(number)
        if !damaged.isEmpty {
            let kept = quarantineName(for: name, in: .ledger)
            do throws(FileSystemError) {
                try fileSystem.writeDurably(damaged.reduce(into: Data()) { $0 += $1.bytes + Data([0x0A]) },
                                            directory: quarantinePath, fileName: kept, mode: Self.fileMode)
            } catch {
                for line in damaged {
                    var problem = line.error
                    problem.message += " The line could not be copied to the quarantine folder (\(error.description)); the segment was left as it is."
                    problems.append(problem)
                }
                return
            }
            for line in damaged {
                var problem = line.error
                problem.message += " The line was moved to quarantine/\(kept)."
                problems.append(problem)
            }
            log(.warning, "Moved damaged lines of a ledger segment to the quarantine folder.",
                ["file": "ledger/\(name)", "quarantinedAs": kept, "lines": String(damaged.count)])
        }
        if let problem = writeLedger(ledger, changed: [number]).problem { problems.append(problem) }
    }

    /// Writes the segments in `changed` as they are in `updated`, in order, and
    /// makes each one that was written part of ``ledger``. A segment left with
    /// no record is deleted. Returns the segments that could not be written
    /// (``ledger`` keeps their previous content) and the first error.
    @discardableResult
    func writeLedger(_ updated: FileOrderLedger, changed: Set<Int>) -> (failed: Set<Int>, problem: PurchaseKitError?) {
        let old = ledger
        var next = updated
        var failed: Set<Int> = []
        var problem: PurchaseKitError?
        let folder = path(of: .ledger)
        for number in changed.sorted() {
            let name = FileOrderLedger.segmentName(number)
            do throws(PurchaseKitError) {
                if next.segments[number]?.ids.isEmpty ?? true {
                    do throws(FileSystemError) {
                        try fileSystem.removeFile(atPath: folder + "/" + name)
                        try fileSystem.synchronizeDirectory(atPath: folder)
                    } catch {
                        throw PurchaseKitError.writeFailed(error, "The emptied ledger segment 'ledger/\(name)' could not be deleted", orderID: nil)
                    }
                    next.dropSegment(number)
                } else {
                    let data = next.content(ofSegment: number)
                    do throws(FileSystemError) {
                        try fileSystem.writeDurably(data, directory: folder, fileName: name, mode: Self.fileMode)
                    } catch {
                        throw PurchaseKitError.writeFailed(error, "The ledger segment 'ledger/\(name)' could not be written", orderID: nil)
                    }
                    next.noteWritten(segment: number, byteCount: data.count)
                }
            } catch {
                next.revert(segment: number, to: old)
                failed.insert(number)
                problem = problem ?? error
            }
        }
        ledger = next
        return (failed, problem)
    }
}
