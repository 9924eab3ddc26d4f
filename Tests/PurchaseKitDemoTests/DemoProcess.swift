import Foundation
import XCTest

/// Runs the built `purchasekit-demo` as a user would, in a temporary folder
/// that holds the story, with output captured through files (so a large
/// output cannot fill a pipe and stall the child).
struct DemoProcess {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    let directory: URL

    /// A fresh, empty working folder.
    static func make() throws -> DemoProcess {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("purchasekit-demo-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return DemoProcess(directory: directory)
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The executable SwiftPM built next to the test bundle.
    static func executable() throws -> URL {
        var folders = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        folders += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for folder in folders {
            let candidate = folder.appendingPathComponent("purchasekit-demo")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw XCTSkip("purchasekit-demo was not built next to the tests; run `swift build` first")
    }

    /// Runs the demo with `arguments` in the working folder.
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = try Self.executable()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let outURL = directory.appendingPathComponent(".out-\(UUID().uuidString)")
        let errURL = directory.appendingPathComponent(".err-\(UUID().uuidString)")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Run(status: process.terminationStatus,
                   stdout: try String(contentsOf: outURL, encoding: .utf8),
                   stderr: try String(contentsOf: errURL, encoding: .utf8))
    }

    /// Runs the demo and parses its standard output as JSON.
    func json(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Any {
        let result = try run(arguments)
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)", file: file, line: line)
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    /// `orders --json`, as dictionaries.
    func orders() throws -> [[String: Any]] {
        try XCTUnwrap(try json(["orders", "--json"]) as? [[String: Any]])
    }
}
