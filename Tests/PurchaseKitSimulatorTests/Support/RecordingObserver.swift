import XCTest
import Foundation
import PurchaseKit

/// An observer that keeps every batch it receives.
final class RecordingObserver: PaymentQueueObserver {
    private let state = Locked<[[TransactionUpdate]]>([])

    func paymentQueue(didUpdate updates: [TransactionUpdate]) async {
        state.withLock { $0.append(updates) }
    }

    /// Every batch, in order.
    var batches: [[TransactionUpdate]] { state.withLock { $0 } }
    /// Every update, flattened.
    var updates: [TransactionUpdate] { batches.flatMap { $0 } }
    /// The kinds of every update.
    var kinds: [TransactionUpdate.Kind] { updates.map(\.kind) }

    func reset() { state.withLock { $0 = [] } }
}

/// `XCTUnwrap` for awaited values (XCTest's autoclosures cannot await).
func unwrapped<T>(_ value: T?, file: StaticString = #filePath, line: UInt = #line) throws -> T {
    try XCTUnwrap(value, file: file, line: line)
}
