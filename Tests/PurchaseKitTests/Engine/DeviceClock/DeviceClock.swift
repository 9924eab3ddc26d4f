import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// A phone's clock over the world's time: the wall clock the user can set
/// back or forward (``set(offset:)``), while the store and the server keep
/// the world's true time.
///
/// It sleeps as ``SystemClock`` does: the interval to the deadline is
/// measured on the wall clock when the sleep begins, then slept in true time,
/// so a jump of the wall clock during a sleep does not move its wake.
final class DeviceClock: PurchaseClock {
    /// The world's true time: the store's and the server's clock.
    let world: ManualClock
    private let offset: Locked<TimeInterval>

    /// A device clock `offset` seconds ahead of the world's (behind when negative).
    init(world: ManualClock, offset: TimeInterval = 0) {
        self.world = world
        self.offset = Locked(offset)
    }

    var now: Date { world.now.addingTimeInterval(offset.withLock { $0 }) }

    /// The user sets the date: the wall clock is now `offset` seconds off the world's.
    func set(offset newOffset: TimeInterval) {
        offset.withLock { $0 = newOffset }
    }

    func sleep(until deadline: Date) async throws {
        let interval = deadline.timeIntervalSince(now)
        try await world.sleep(until: world.now.addingTimeInterval(max(0, interval)))
    }
}
