#if !canImport(StoreKit)
import Synchronization

/// The scripted store's side of one asynchronous sequence (not Apple's API):
/// elements are sent into it, one consumer takes them with `next()`, and a
/// sender can wait until the consumer has *processed* an element — asked for
/// the one after it — so that a test knows an update was handled without
/// sleeping or polling.
package final class ScriptedChannel<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        /// Calls of `next()` so far; the element sent at index `i` is handed to call `i + 1`.
        var requests = 0
        var sent = 0
        /// No element will be sent any more (a finite sequence).
        var isFinished = false
        /// The consumer went away (its task was cancelled).
        var isClosed = false
        var consumer: CheckedContinuation<Element?, Never>?
        var processedWaiters: [(index: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var closeWaiters: [CheckedContinuation<Void, Never>] = []

        func isProcessed(_ index: Int) -> Bool { isClosed || requests >= index + 2 }

        mutating func takeProcessedWaiters() -> [CheckedContinuation<Void, Never>] {
            let done = requests - 2
            let ready = processedWaiters.filter { isClosed || $0.index <= done }.map(\.continuation)
            processedWaiters.removeAll { isClosed || $0.index <= done }
            return ready
        }
    }

    private let state: Mutex<State>

    /// A channel holding `elements`; `finished` ends the sequence after them.
    package init(_ elements: [Element] = [], finished: Bool) {
        var initial = State()
        initial.buffer = elements
        initial.sent = elements.count
        initial.isFinished = finished
        state = Mutex(initial)
    }

    /// Whether the consumer went away.
    package var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Sends an element; returns its index, for `waitUntilProcessed(_:)`.
    @discardableResult
    package func send(_ element: Element) -> Int {
        let (index, consumer) = state.withLock { s -> (Int, CheckedContinuation<Element?, Never>?) in
            let index = s.sent
            s.sent += 1
            guard !s.isClosed else { return (index, nil) }
            if let waiting = s.consumer {
                s.consumer = nil
                return (index, waiting)
            }
            s.buffer.append(element)
            return (index, nil)
        }
        consumer?.resume(returning: element)
        return index
    }

    /// Returns once the consumer has processed the element sent at `index`
    /// (asked for the next one), or went away.
    package func waitUntilProcessed(_ index: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.isProcessed(index) { return true }
                s.processedWaiters.append((index, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// The consumer's side: the next element, or nil once the sequence ended
    /// or the consuming task was cancelled.
    package func next() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let (answer, processed) = state.withLock { s -> (Element??, [CheckedContinuation<Void, Never>]) in
                    s.requests += 1
                    let processed = s.takeProcessedWaiters()
                    if !s.buffer.isEmpty { return (.some(s.buffer.removeFirst()), processed) }
                    if s.isFinished || s.isClosed { return (.some(nil), processed) }
                    s.consumer = continuation
                    return (nil, processed)
                }
                for waiter in processed { waiter.resume() }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            close()
        }
    }

    /// Returns once the consumer went away (at once if it already has).
    package func waitUntilClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let closed = state.withLock { s -> Bool in
                if !s.isClosed { s.closeWaiters.append(continuation) }
                return s.isClosed
            }
            if closed { continuation.resume() }
        }
    }

    /// The consumer went away: it gets nil, and nobody waits for it any more.
    package func close() {
        let (consumer, waiters) = state.withLock { s -> (CheckedContinuation<Element?, Never>?, [CheckedContinuation<Void, Never>]) in
            s.isClosed = true
            let consumer = s.consumer
            s.consumer = nil
            let waiters = s.processedWaiters.map(\.continuation) + s.closeWaiters
            s.processedWaiters = []
            s.closeWaiters = []
            return (consumer, waiters)
        }
        consumer?.resume(returning: nil)
        for waiter in waiters { waiter.resume() }
    }
}
#endif
