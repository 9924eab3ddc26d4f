import Foundation

/// The records a reload does again: among those a failed write or flush
/// lost (see ``JournalWriter/Context/dropped``), the ones whose calls
/// returned before their flush — a save whose status need not be durable
/// (``JournalOrderStore/mustBeDurable(_:)``), open or straight into the
/// archive, an archive move, a renewal state. Their calls succeeded; a
/// reload that forgot them would answer with the older version, and the
/// next change would build on it: an archive move
/// that follows a forgotten `completed` save archives the `delivered` version,
/// which no launch finishes again. The other records' calls failed, and
/// stay undone.
enum JournalRedo {
    /// The frames of `bytes` to do again, in order.
    static func records(in bytes: Data, maximumRecordSize: Int) -> [UInt8] {
        var redo: [UInt8] = []
        bytes.withUnsafeBytes { all in
            _ = JournalFrame.scan(all, maximumPayload: maximumRecordSize + 2) { payload in
                guard isAcknowledgedBeforeFlush(all, payload) else { return }
                redo.append(contentsOf: all[(payload.lowerBound - JournalFrame.headerSize)..<payload.upperBound])
            }
        }
        return redo
    }

    private static func isAcknowledgedBeforeFlush(_ bytes: UnsafeRawBufferPointer, _ payload: Range<Int>) -> Bool {
        switch try? JournalRecord.parse(bytes, payload: payload) {
        case .put(let place, let range)? where place != .compacted:
            // A save, open or straight into the archive (compacted orders are written to snapshots only).
            guard let order = try? OrderBinaryCoding.decode(UnsafeRawBufferPointer(rebasing: bytes[range])) else { return false }
            return !JournalOrderStore.mustBeDurable(order.status)
        case .archive?, .renewal?:
            return true
        default:
            return false
        }
    }
}
