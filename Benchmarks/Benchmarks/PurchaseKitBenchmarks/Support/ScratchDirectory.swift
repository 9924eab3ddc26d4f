import Foundation

/// A fresh directory for one benchmark's files, deleted by `remove()`.
///
/// It sits in `PURCHASEKIT_BENCHMARK_DIRECTORY` when that is set, else in the
/// system's temporary directory. Put it on the disk you want to measure: on a
/// RAM file system (tmpfs) `fsync` costs nothing and the durable numbers mean nothing.
struct ScratchDirectory: Sendable {
    let url: URL
    var path: String { url.path }

    init(_ label: String) throws {
        let base: URL
        if let configured = ProcessInfo.processInfo.environment["PURCHASEKIT_BENCHMARK_DIRECTORY"], !configured.isEmpty {
            base = URL(fileURLWithPath: configured, isDirectory: true)
        } else {
            base = FileManager.default.temporaryDirectory
        }
        url = base.appendingPathComponent("purchasekit-bench-\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
