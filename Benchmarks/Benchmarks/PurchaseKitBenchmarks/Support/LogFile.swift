import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An append-only log file: the floor under any durable store on a disk. One
/// record appended with `write` and made durable with `fdatasync` is the least
/// a durable save can cost; many records per `fdatasync` is what group commit
/// can reach.
final class LogFile: @unchecked Sendable {
    // `@unchecked Sendable` is safe: a benchmark uses one log from one iteration at a time.
    let path: String
    private let descriptor: Int32

    init(in directory: String, name: String = "floor.log") throws {
        path = directory + "/" + name
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BenchmarkFailure("open failed on \(path): \(String(cString: strerror(errno)))") }
        // The file's own directory entry, flushed once: what every later append builds on.
        try DurableFile.synchronizeDirectory(directory)
    }

    deinit {
        #if canImport(Darwin)
        _ = Darwin.close(descriptor)
        #elseif canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Musl.close(descriptor)
        #endif
    }

    /// Appends `data` (one write call).
    func append(_ data: Data) throws {
        let failure = data.withUnsafeBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw BenchmarkFailure("write failed on \(path): \(String(cString: strerror(failure)))") }
    }

    /// Makes what was appended durable.
    func flush() throws {
        #if canImport(Darwin)
        guard fcntl(descriptor, F_FULLFSYNC) == 0 else { throw BenchmarkFailure("F_FULLFSYNC failed on \(path)") }
        #else
        guard fdatasync(descriptor) == 0 else { throw BenchmarkFailure("fdatasync failed on \(path): \(String(cString: strerror(errno)))") }
        #endif
    }
}
