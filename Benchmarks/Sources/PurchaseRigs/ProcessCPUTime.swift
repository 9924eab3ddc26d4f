import Foundation

/// The CPU time the whole process has used so far (every thread, user and
/// system), for figures per CPU-second: unlike wall-clock time, it does not
/// fall when more cores are busy, nor rise while a thread waits for the disk.
public enum ProcessCPUTime {
    /// Nanoseconds of CPU used by the process since it started.
    public static func nanoseconds() -> UInt64 {
        var time = timespec()
        guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return 0 }
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// How many operations one CPU-second pays for, at `count` operations in `nanoseconds` of CPU.
    public static func perCPUSecond(_ count: Int, nanoseconds: UInt64) -> Int {
        Int(UInt64(count) * 1_000_000_000 / max(nanoseconds, 1))
    }
}
