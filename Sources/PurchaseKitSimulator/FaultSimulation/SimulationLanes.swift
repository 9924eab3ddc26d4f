import Foundation
import PurchaseKit

/// Many runs side by side: `width` threads, each running one world after
/// another, every world on a fresh ``SimulationExecutor`` that the thread
/// itself drives. A thread takes the next run as soon as its last one ends,
/// so no thread is started, and none woken, between two runs: a run takes
/// about a millisecond, so starting a thread for each and handing its result
/// back through the cooperative pool would leave a core idle for a good part
/// of it.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
enum SimulationLanes {
    /// Runs `operation` for `0..<count` on `width` threads and hands each
    /// result to `deliver` (under a lock, in the order the runs end).
    static func run<T: Sendable>(count: Int, width: Int,
                                 _ operation: @escaping @Sendable (Int, any TaskStarter) async -> T,
                                 deliver: @escaping @Sendable (Int, T) -> Void) async {
        let next = RunIndices(count: count)
        let lanesLeft = Locked(width)
        await withCheckedContinuation { (allDone: CheckedContinuation<Void, Never>) in
            for _ in 0..<width {
                let thread = Thread {
                    while let index = next.take() {
                        deliver(index, runWorld { starter in await operation(index, starter) })
                    }
                    if lanesLeft.withLock({ $0 -= 1; return $0 }) == 0 { allDone.resume() }
                }
                thread.name = "fault-simulation"
                thread.start()
            }
        }
    }

    /// Runs one world on a fresh executor driven by the calling thread, and
    /// returns once its first task has ended and every job queued has run.
    private static func runWorld<T: Sendable>(_ operation: @escaping @Sendable (any TaskStarter) async -> T) -> T {
        let executor = SimulationExecutor()
        let starter = SimulationExecutor.Starter(executor: executor)
        let result = Locked<T?>(nil)
        Task(executorPreference: executor) {
            let value = await operation(starter)
            result.withLock { $0 = value }
            executor.stop()
        }
        executor.loop()
        // The first task set it before it stopped the loop.
        return result.withLock { $0 }!
    }
}

/// The indices `0..<count`, each handed out once, in order, to whichever lane asks first.
final class RunIndices: Sendable {
    private let count: Int
    private let next = Locked(0)

    init(count: Int) { self.count = count }

    /// The next index, or nil once every one was handed out.
    func take() -> Int? {
        next.withLock { value in
            guard value < count else { return nil }
            defer { value += 1 }
            return value
        }
    }
}
