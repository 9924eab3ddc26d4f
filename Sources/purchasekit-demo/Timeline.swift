import Foundation
@_spi(Testing) import PurchaseKit

/// Collects the engine's events between checkpoints, so that the timeline is
/// printed in one piece, in order, after each step, and never interleaves
/// with the narration.
actor Timeline {
    private let engine: PurchaseEngine
    private var stream: AsyncStream<PurchaseEvent>
    /// Events read by ``wait(for:)`` and not taken yet.
    private var buffered: [PurchaseEvent] = []

    init(engine: PurchaseEngine) async {
        self.engine = engine
        self.stream = await engine.events()
    }

    /// Reads events until one matches, keeping them for ``take()``.
    ///
    /// `PurchaseEngine.waitUntilIdle()` may return while a retry that a timer
    /// fired is still running (the fired timer leaves the engine's timer list
    /// before its delivery ends), so after moving the clock the demo waits for
    /// the event it expects instead.
    func wait(for matches: @Sendable (PurchaseEvent) -> Bool) async {
        for await event in stream {
            buffered.append(event)
            if matches(event) { return }
        }
    }

    /// Every event since the last call, in order. Cancelling the reading task
    /// ends the subscription after its buffered events have been read; a new
    /// subscription then starts for the next step. Call it when the engine is
    /// idle, or from inside engine work (the crash), where nothing else emits.
    func take() async -> [PurchaseEvent] {
        let reader = Task { [stream] in
            var events: [PurchaseEvent] = []
            for await event in stream { events.append(event) }
            return events
        }
        reader.cancel()
        let events = buffered + (await reader.value)
        buffered = []
        stream = await engine.events()
        return events
    }
}

/// Turns events into timeline lines.
struct TimelinePrinter: Sendable {
    let terminal: Terminal
    /// Display names by product id.
    let names: [String: String]

    func print(_ events: [PurchaseEvent]) {
        for event in events {
            if let line = line(for: event) { terminal.line(line) }
        }
    }

    func name(of productID: String) -> String {
        names[productID] ?? productID
    }

    func line(for event: PurchaseEvent) -> String? {
        switch event {
        case .orderChanged(let order, let from):
            let head = prefix(order)
            guard let from else {
                let origin = order.source == .purchase ? "" : " (\(order.source.rawValue))"
                let who = order.userID.isEmpty ? "no user yet" : "for \(order.userID)"
                var text = "\(head) new order\(origin): \(name(of: order.productID)) \(who)"
                if order.status != .created { text += " → " + status(order.status) }
                return text + detail(order)
            }
            return "\(head) \(terminal.paint(from.rawValue, .dim)) → \(status(order.status))" + detail(order)
        case .retryScheduled(let order, let date):
            let reason = order.hint.map { ": \($0)" } ?? ""
            return "\(prefix(order)) " + terminal.paint("delivery retry #\(order.verificationAttempts + 1) at \(date.demoText)\(reason)", .yellow)
        case .needsAttention(let order):
            return "\(prefix(order)) " + terminal.paint("needs attention: \(order.hint ?? "retry budget used up")", .magenta)
        case .revoked:
            return nil // The order's move to `revoked` is on its own line already.
        case .entitlementsChanged(let user):
            return terminal.paint(String(repeating: " ", count: 16) + "\(user): entitlements changed", .dim)
        case .restoreFinished(let result):
            let products = result.restoredProductIDs.map(name(of:)).joined(separator: ", ")
            return String(repeating: " ", count: 16) + "restore for \(result.userID): " + (products.isEmpty ? "nothing to restore" : products)
        case .restoreFailed(let user, let error):
            return String(repeating: " ", count: 16) + terminal.paint("restore for \(user) failed: \(error.message)", .red)
        }
    }

    private func prefix(_ order: Order) -> String {
        let date = order.updatedAt.demoText.dropFirst(5)
        return terminal.paint(String(date), .dim) + "  " + terminal.paint(order.id.padded(23), .cyan)
    }

    func status(_ status: OrderStatus) -> String {
        switch status {
        case .completed, .delivered: return terminal.paint(status.rawValue, .green)
        case .failed, .rejected, .revoked: return terminal.paint(status.rawValue, .red)
        case .needsAttention: return terminal.paint(status.rawValue, .magenta)
        case .deferred, .purchased: return terminal.paint(status.rawValue, .yellow)
        case .created, .purchasing, .cancelled: return terminal.paint(status.rawValue, .bold)
        }
    }

    private func detail(_ order: Order) -> String {
        var parts: [String] = []
        switch order.status {
        case .purchased:
            if let id = order.transactionID { parts.append("paid, transaction \(id)") }
        case .deferred:
            parts.append("waiting for a parent's approval; nothing granted")
        case .delivered:
            parts.append("credited to \(order.userID)")
        case .completed:
            parts.append("transaction \(order.transactionID ?? "?") finished")
        case .failed:
            parts.append(order.storeFailureReason.map { "the store refused: \($0.rawValue)" } ?? "the store refused")
        case .cancelled:
            parts.append("nothing charged")
        case .rejected, .needsAttention:
            if let hint = order.hint { parts.append(hint) }
        case .revoked:
            parts.append("refunded; the purchase is taken back")
        case .created, .purchasing:
            break
        }
        return parts.isEmpty ? "" : terminal.paint("  (\(parts.joined(separator: "; ")))", .dim)
    }
}
