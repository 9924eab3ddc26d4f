import Foundation

/// What the kernel did for the whole process so far (every thread): the CPU
/// spent in system calls, and how often a thread gave up its core to wait
/// (a voluntary context switch: an idle worker thread going to sleep, a
/// thread waiting for a lock or the disk). Between two samples, these show
/// how much of a purchase's CPU goes to handing work from thread to thread.
/// The kernel splits CPU time into user and system by sampling at its tick
/// (every 4 ms on a 250 Hz kernel), so the system share means something
/// over a round of many purchases, not over one.
struct KernelUsage {
    var systemMicroseconds: Int
    var voluntarySwitches: Int

    static func now() -> KernelUsage {
        var usage = rusage()
        #if os(Linux)
        let who = RUSAGE_SELF.rawValue
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return KernelUsage(systemMicroseconds: 0, voluntarySwitches: 0) }
        return KernelUsage(systemMicroseconds: Int(usage.ru_stime.tv_sec) * 1_000_000 + Int(usage.ru_stime.tv_usec),
                           voluntarySwitches: Int(usage.ru_nvcsw))
    }

    static func - (later: KernelUsage, earlier: KernelUsage) -> KernelUsage {
        KernelUsage(systemMicroseconds: later.systemMicroseconds - earlier.systemMicroseconds,
                    voluntarySwitches: later.voluntarySwitches - earlier.voluntarySwitches)
    }
}
