// TEMPORARY SHIM — DELETE WHEN MERGING.
//
// The fault simulation (`FaultSimulation` in PurchaseKitSimulator) is written
// on another branch. This file declares exactly its API so that the `chaos`
// command builds here; it produces no numbers. Once the real type is merged,
// delete this file: `ChaosCommand.swift` then uses the simulator's type.

import Foundation

enum FaultSimulation {
    struct Options: Sendable {
        var runs: Int
        var firstSeed: UInt64

        init(runs: Int, firstSeed: UInt64) {
            self.runs = runs
            self.firstSeed = firstSeed
        }
    }

    struct Failure: Codable, Sendable {
        var seed: UInt64
        var message: String
        var replayCommand: String
    }

    struct Report: Codable, Sendable {
        var runs: Int
        var purchases: Int
        var faults: [String: Int]
        var lost: Int
        var duplicated: Int
        var wrongUser: Int
        var unfinished: Int
        var invalidTransitions: Int
        var entitlementViolations: Int
        var secretLeaks: Int
        var seconds: Double
        var failures: [Failure]
        var traceHash: String
    }

    /// Not available in this build: says so and exits with status 1, rather than report made-up numbers.
    static func run(_ options: Options) async -> Report {
        Terminal.error("error: the fault simulation is not available in this build.")
        Terminal.flush()
        exit(1)
    }
}
