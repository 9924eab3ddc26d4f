import PurchaseKitSimulator

/// Runs `run` once for each power loss: at file-system call 1, 2, 3... of the
/// run, before and after the call, under each loss policy (only what was
/// flushed survives, everything survives, a seeded mix). `run` returns whether
/// its crash fired; once no run of a call number fires, the runs made fewer
/// calls than that, and every call was a crash point.
///
/// - Returns: the number of calls that were crash points, and the runs made.
func enumeratePowerLosses(
    _ run: (SimulatedDisk.CrashPoint, SimulatedDisk.PowerLoss) async throws -> Bool
) async rethrows -> (calls: Int, runs: Int) {
    var call = 1
    var runs = 0
    while true {
        var fired = false
        for timing in SimulatedDisk.Timing.allCases {
            for policy in [SimulatedDisk.PowerLoss.durableOnly, .everything, .seeded(UInt64(call))] {
                runs += 1
                fired = try await run(.init(call: call, timing: timing), policy) || fired
            }
        }
        guard fired else { return (call - 1, runs) }
        call += 1
    }
}
