import Foundation
import PurchaseKit
import PurchaseRigs

// A round of purchases, 64 in flight, in a plain process: what
// `profile-instructions.sh` counts the instructions of under valgrind, and
// what a profiler (perf, callgrind) can be pointed at. The same rig as the
// benchmark "Purchase, 64 in flight: InMemoryOrderStore".
//
//   purchase-profile [--purchases N] [--in-flight K] [--queue simulated|minimal] [--journal DIRECTORY]
//
// With --journal, the orders go to a new JournalOrderStore in a folder of
// its own inside DIRECTORY, removed at the end. It prints the CPU time and
// wall time a purchase took. Run it pinned to one
// core (`taskset -c 0`) to compare with the benchmarks, whose harness leaves
// the engine one thread (Benchmarks/README.md).

struct Options {
    var purchases = 2_000
    var inFlight = 64
    var minimalQueue = false
    var journal: URL?

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            // Read only by a known flag: an unknown one is named as unknown, not as missing its value.
            func value() throws -> String {
                guard let value = rest.popFirst() else { throw RigFailure("\(flag) needs a value.") }
                return value
            }
            switch flag {
            case "--purchases": purchases = try Self.count(try value(), flag)
            case "--in-flight": inFlight = try Self.count(try value(), flag)
            case "--queue":
                let queue = try value()
                guard queue == "simulated" || queue == "minimal" else {
                    throw RigFailure("--queue is 'simulated' or 'minimal', not '\(queue)'.")
                }
                minimalQueue = queue == "minimal"
            case "--journal": journal = URL(fileURLWithPath: try value(), isDirectory: true)
            default: throw RigFailure("Unknown option \(flag). \(Self.usage)")
            }
        }
    }

    static let usage = "Usage: purchase-profile [--purchases N] [--in-flight K] [--queue simulated|minimal] [--journal DIRECTORY]"

    private static func count(_ value: String, _ flag: String) throws -> Int {
        guard let number = Int(value), number > 0 else { throw RigFailure("\(flag) takes a positive whole number, not '\(value)'.") }
        return number
    }
}

func run(_ options: Options) async throws -> String {
    let store: any OrderStore
    // A journal of its own in the folder given, removed at the end: a store
    // that held another run's orders holds transaction ids the simulated
    // store, which starts counting again, would hand out a second time.
    let scratch = options.journal?.appendingPathComponent("purchase-profile-\(UUID().uuidString)", isDirectory: true)
    defer { if let scratch { try? FileManager.default.removeItem(at: scratch) } }
    if let scratch {
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        } catch {
            throw RigFailure("No folder for the journal could be made at \(scratch.path): \(error.localizedDescription)")
        }
        store = try JournalOrderStore(directory: scratch)
    } else {
        store = InMemoryOrderStore()
    }
    let queue: (any PaymentQueue)? = options.minimalQueue ? MinimalPaymentQueue(products: [PurchaseRounds.coins]) : nil
    let engine = try PurchaseRounds.engine(store: store, maximumConcurrentPurchases: options.inFlight, queue: queue)
    try await engine.start()
    let wallStart = ContinuousClock.now
    let cpuStart = ProcessCPUTime.nanoseconds()
    _ = try await PurchaseRounds.purchaseConcurrently(on: engine, total: options.purchases, inFlight: options.inFlight)
    let cpu = Double(ProcessCPUTime.nanoseconds() - cpuStart) / 1_000 / Double(options.purchases)
    let wall = Double(PurchaseRounds.microseconds(wallStart.duration(to: .now))) / Double(options.purchases)
    await engine.shutdown()
    let what = "\(options.purchases) purchases, \(options.inFlight) in flight, "
        + (options.minimalQueue ? "minimal payment queue" : "simulated store") + ", "
        + (options.journal == nil ? "InMemoryOrderStore" : "JournalOrderStore")
    return what + String(format: ": %.1f μs of CPU and %.1f μs of wall time a purchase", cpu, wall)
}

if CommandLine.arguments.dropFirst().contains("--help") {
    print(Options.usage)
    exit(0)
}
let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("purchase-profile: \(error)\n".utf8))
    exit(2)
}
// The purchases run off the main thread, which waits for them.
let finished = DispatchSemaphore(value: 0)
nonisolated(unsafe) var outcome: Result<String, any Error> = .failure(RigFailure("The round did not run."))
Task.detached {
    do { outcome = .success(try await run(options)) } catch { outcome = .failure(error) }
    finished.signal()
}
finished.wait()
switch outcome {
case .success(let line): print(line)
case .failure(let error):
    FileHandle.standardError.write(Data("purchase-profile: \(error)\n".utf8))
    exit(1)
}
