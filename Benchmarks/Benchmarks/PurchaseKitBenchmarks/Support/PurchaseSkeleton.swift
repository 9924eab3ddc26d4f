import Foundation

/// The tasks and hand-overs an in-memory purchase makes, with no work in
/// them: what the engine's design costs before it records, matches or saves
/// anything. Each step stands for one of the engine's:
///
/// 1. the caller's call onto the engine's actor;
/// 2. a timed store call (`canMakePayments`): a task of its own, which calls
///    the store's actor, and a one-shot result the engine waits for;
/// 3. the payment handed to the store in a task of its own; the store calls
///    the engine back with the paid update, which starts the delivery as a
///    task of its own;
/// 4. in the delivery, two more timed calls: the verifier, then the store's
///    `finish`;
/// 5. the waiting caller resumed with its result.
///
/// The engine sets and cancels a deadline for each timed call, and saves the
/// order five times; the skeleton does neither.
actor SkeletonEngine {
    private let store: SkeletonStore
    private var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    private var answeredEarly: Set<Int> = []

    init(store: SkeletonStore) {
        self.store = store
    }

    func purchase(_ id: Int) async {
        let store = self.store
        _ = await timed { await store.canMakePayments() }
        Task { await self.hand(id) }
        if answeredEarly.remove(id) != nil { return }
        await withCheckedContinuation { waiting[id] = $0 }
    }

    func paid(_ id: Int) {
        Task { await self.deliver(id) }
    }

    private func hand(_ id: Int) async {
        await store.add(id, answering: self)
    }

    private func deliver(_ id: Int) async {
        _ = await timed { true }
        let store = self.store
        _ = await timed { await store.finish(id) }
        if let caller = waiting.removeValue(forKey: id) { caller.resume() } else { answeredEarly.insert(id) }
    }

    /// Runs `body` as a task of its own and waits for its one-shot result.
    private func timed(_ body: @escaping @Sendable () async -> Bool) async -> Bool {
        let result = SkeletonResult()
        let work = Task { result.resolve(await body()) }
        defer { work.cancel() }
        return await result.value()
    }
}

/// The store's side: an actor that takes the payment and calls the engine back.
actor SkeletonStore {
    func canMakePayments() -> Bool { true }

    func add(_ id: Int, answering engine: SkeletonEngine) async {
        await engine.paid(id)
    }

    func finish(_ id: Int) -> Bool { true }
}

/// A result that arrives once and one waiter for it.
///
/// `@unchecked Sendable` is safe: both fields are only touched under the lock.
final class SkeletonResult: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Bool?
    private var waiter: CheckedContinuation<Bool, Never>?

    func resolve(_ value: Bool) {
        let waiter = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            result = value
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume(returning: value)
    }

    func value() async -> Bool {
        await withCheckedContinuation { continuation in
            let ready = lock.withLock { () -> Bool? in
                if result == nil { waiter = continuation }
                return result
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
