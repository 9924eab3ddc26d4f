/// Every purchase call waiting for its order to come to rest, by order id:
/// the one owner of their continuations and store-timeout deadlines.
///
/// A call is opened before its payment goes to the store and answered exactly
/// once: by its order coming to rest, its store timeout, its task's
/// cancellation, a failed save or the engine's shutdown, whichever comes
/// first; every later answer is dropped. The answer may come before the call
/// suspends (the store can answer inside `add`), so it is kept until the call
/// takes it. A call suspends once. Not thread-safe: the engine's actor owns it.
struct WaitingCalls {
    typealias Answer = Result<PurchaseResult, PurchaseKitError>

    /// A continuation with its answer, to resume once the owner's state is
    /// consistent again.
    struct Resumption {
        fileprivate let continuation: Suspension<PurchaseResult, any Error>
        fileprivate let answer: Answer

        func resume() {
            continuation.resume(with: answer.mapError { $0 as any Error })
        }
    }

    private struct Call {
        var answer: Answer?
        var continuation: Suspension<PurchaseResult, any Error>?
        var deadlineID: UInt64?
    }

    private var calls: [String: Call] = [:]

    /// Makes room for `count` calls waiting at once.
    mutating func reserveCapacity(_ count: Int) { calls.reserveCapacity(count) }

    /// The orders with a call waiting, answered or not.
    var orderIDs: [String] { Array(calls.keys) }

    /// Whether a call waits on the order (answered or not).
    // By position, not by value: reading a call copies its answer (a whole order).
    func isWaiting(_ orderID: String) -> Bool { calls.index(forKey: orderID) != nil }

    /// Whether the order's call is suspended, waiting for its answer.
    func isSuspended(_ orderID: String) -> Bool {
        guard let position = calls.index(forKey: orderID) else { return false }
        return calls.values[position].continuation != nil
    }

    /// Opens the call of a purchase about to hand its payment to the store.
    mutating func open(_ orderID: String) {
        assert(calls[orderID] == nil, "one purchase call per order")
        calls[orderID] = Call()
    }

    /// Closes a call that never suspended (the purchase threw before waiting).
    /// - Returns: the deadline to cancel, if one was set.
    mutating func close(_ orderID: String) -> UInt64? {
        assert(calls[orderID]?.continuation == nil, "a suspended call is answered, never closed")
        return calls.removeValue(forKey: orderID)?.deadlineID
    }

    /// Records the call's store-timeout deadline.
    mutating func setDeadline(_ deadlineID: UInt64, for orderID: String) {
        // Read and written back whole, by position: an optional-chained write
        // goes through the dictionary's modify accessor, whose frame for a
        // value this large is allocated on the heap, and a write by key
        // would hash the id again.
        guard let position = calls.index(forKey: orderID) else { return }
        var call = calls.values[position]
        call.deadlineID = deadlineID
        calls.values[position] = call
    }

    /// Answers the call, if it has no answer yet.
    /// - Returns: the deadline to cancel, and the continuation to resume when
    ///   the call is suspended; nil when there is no call or it was answered.
    mutating func answer(_ orderID: String, with answer: Answer) -> (deadlineID: UInt64?, resumption: Resumption?)? {
        guard let position = calls.index(forKey: orderID) else { return nil }
        var call = calls.values[position]
        guard call.answer == nil else { return nil }
        let deadlineID = call.deadlineID
        if let continuation = call.continuation {
            calls.remove(at: position)
            return (deadlineID, Resumption(continuation: continuation, answer: answer))
        }
        call.answer = answer
        call.deadlineID = nil
        calls.values[position] = call
        return (deadlineID, nil)
    }

    /// Takes an answer that came before the call suspended, ending the call.
    mutating func takeEarlyAnswer(_ orderID: String) -> Answer? {
        guard let position = calls.index(forKey: orderID), let answer = calls.values[position].answer else { return nil }
        calls.remove(at: position)
        return answer
    }

    /// Suspends the call on `continuation`. An answer already there (or a
    /// call that is not open) resumes it at once: a continuation is never
    /// left without an answer.
    mutating func suspend(_ orderID: String, on continuation: Suspension<PurchaseResult, any Error>,
                          unknown: @autoclosure () -> PurchaseKitError) -> Resumption? {
        guard let position = calls.index(forKey: orderID) else {
            assertionFailure("a purchase call suspends only while open")
            return Resumption(continuation: continuation, answer: .failure(unknown()))
        }
        var call = calls.values[position]
        assert(call.continuation == nil, "a purchase call suspends once")
        if let answer = call.answer {
            calls.remove(at: position)
            return Resumption(continuation: continuation, answer: answer)
        }
        call.continuation = continuation
        calls.values[position] = call
        return nil
    }
}
