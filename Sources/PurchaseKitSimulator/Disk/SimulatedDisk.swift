import Foundation
import PurchaseKit
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An in-memory disk that keeps, after a power loss, only what a POSIX file
/// system promises to keep, so that a store's durability can be proven rather
/// than hoped for. It is the store's ``FileSystem`` (see the conformance).
///
/// While the machine is up every call sees the live state, as a process sees
/// the page cache. What survives ``powerLoss(_:)``:
///
/// - a file's bytes up to its last `fsync`; bytes written after it may be
///   kept, lost, or torn (a prefix, alone or padded to the written length with
///   zeros or garbage);
/// - a directory's entries up to its last `fsync`; a later creation, rename
///   or deletion may be undone, each on its own (stricter than a journaling
///   file system, which keeps them in order). A rename never loses its file:
///   it happens whole or not at all, or, between two directories of which only
///   the destination was flushed, leaves the file under both names.
///
/// Every call is counted and can be made the crash point (``crash(at:)``):
/// the process dies there, and every later call fails with `EIO` and changes
/// nothing, until the power loss that follows brings the machine back up.
/// Everything is deterministic: the same calls and the same seed give the same
/// disk. Directories cannot be renamed, and permission bits are recorded but
/// never enforced: the order store needs neither.
package final class SimulatedDisk: Sendable {
    /// Before or after a counted call.
    package enum Timing: String, Sendable, Hashable, CaseIterable {
        /// The call never happens.
        case before
        /// The call's effect happens, but its caller only gets the dead process's error.
        case after
    }

    /// Where the process dies: the `call`-th call (1-based) counted from when
    /// the point was armed, before or after it.
    package struct CrashPoint: Sendable, Hashable, CustomStringConvertible {
        package var call: Int
        package var timing: Timing

        package init(call: Int, timing: Timing) {
            self.call = call
            self.timing = timing
        }

        package var description: String { "\(timing.rawValue) call #\(call)" }
    }

    /// What a power loss keeps of what was not flushed.
    package enum PowerLoss: Sendable, Hashable, CustomStringConvertible {
        /// Nothing: the disk holds exactly what was flushed.
        case durableOnly
        /// Everything, as when only the process died and the system wrote its cache back.
        case everything
        /// One of the allowed outcomes per unflushed change, drawn from the seed.
        case seeded(UInt64)

        package var description: String {
            switch self {
            case .durableOnly: "durable only"
            case .everything: "everything kept"
            case .seeded(let seed): "seed \(seed)"
            }
        }
    }

    /// One counted call, for naming crash points in messages.
    package struct Call: Sendable, Hashable, CustomStringConvertible {
        package var operation: FileSystemError.Operation
        package var path: String

        package var description: String { "\(operation.rawValue) \(path)" }
    }

    private struct State {
        var tree = DiskTree()
        var calls: [Call] = []
        var crashPoint: (call: Int, timing: Timing)?
        var isDown = false
    }

    private let state = Locked(State())
    /// Whether flushes are acknowledged and do nothing: a broken disk (or a
    /// store that believes it flushed), for proving that the checks catch it.
    let ignoresFlushes: Bool

    /// An empty disk holding only the root directory `/`; `ignoresFlushes`
    /// makes it a broken one.
    package init(ignoresFlushes: Bool = false) {
        self.ignoresFlushes = ignoresFlushes
    }

    /// The calls made since the disk was created or last came back up, in order.
    package var calls: [Call] { state.withLock { $0.calls } }

    /// Whether the process using the disk died at its crash point; every call fails until ``powerLoss(_:)``.
    package var isDown: Bool { state.withLock { $0.isDown } }

    /// Makes the process die at `point`, counted from now.
    package func crash(at point: CrashPoint) {
        state.withLock { $0.crashPoint = ($0.calls.count + point.call, point.timing) }
    }

    /// Takes back a crash point that was not reached.
    package func disarm() {
        state.withLock { $0.crashPoint = nil }
    }

    /// Cuts the power: the disk keeps what `policy` draws from what the rules
    /// allow, every open descriptor is gone, and the machine is back up for the
    /// next process, with no crash point and a fresh call count.
    package func powerLoss(_ policy: PowerLoss) {
        state.withLock { s in
            var chooser = DiskTree.Chooser(policy)
            let survivors = s.tree.survivors(&chooser)
            s.tree.restart(entries: survivors.entries, contents: survivors.contents)
            s.calls = []
            s.crashPoint = nil
            s.isDown = false
        }
    }

    /// Runs one counted call against the tree, dying before or after it at the crash point.
    func perform<Value>(_ operation: FileSystemError.Operation, _ path: String,
                        _ body: (inout DiskTree) throws(DiskTree.Failure) -> Value) throws(FileSystemError) -> Value {
        try state.withLock { s -> Result<Value, FileSystemError> in
            let dead = FileSystemError(operation, errorNumber: EIO, path: path)
            guard !s.isDown else { return .failure(dead) }
            s.calls.append(Call(operation: operation, path: path))
            let isCrashPoint = s.crashPoint?.call == s.calls.count
            if isCrashPoint, s.crashPoint?.timing == .before {
                s.isDown = true
                return .failure(dead)
            }
            let result: Result<Value, FileSystemError>
            do throws(DiskTree.Failure) {
                result = .success(try body(&s.tree))
            } catch {
                result = .failure(FileSystemError(operation, errorNumber: error.errorNumber, path: path))
            }
            if isCrashPoint {
                s.isDown = true
                return .failure(dead)
            }
            return result
        }.get()
    }
}
