import Foundation
import PurchaseKit

/// Many runs side by side: `width` threads, each running one world after
/// another, every world on a fresh ``SimulationExecutor`` that the thread
/// itself drives (``SimulationExecutor/drive(_:)``). A thread takes the next
/// run as soon as its last one ends, so no thread is started, and none woken,
/// between two runs: a run takes about a millisecond, so starting a thread
/// for each and handing its result back through the cooperative pool would
/// leave a core idle for a good part of it.
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
                        deliver(index, SimulationExecutor.drive { starter in await operation(index, starter) })
                    }
                    if lanesLeft.withLock({ $0 -= 1; return $0 }) == 0 { allDone.resume() }
                }
                thread.name = "fault-simulation"
                thread.start()
            }
        }
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
