import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One durable file write, the way `FileOrderStore` makes one: a fresh
/// temporary file in the same directory, written, flushed (`fsync`), closed,
/// renamed over the target, then the directory flushed so the rename survives
/// a power loss. The unit every durable store pays per save.
enum DurableFile {
    static func replace(_ fileName: String, in directory: String, with data: Data) throws {
        let temporary = directory + "/.tmp-" + UUID().uuidString.lowercased()
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("open", temporary) }
        do {
            try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < buffer.count {
                    let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw failure("write", temporary)
                    }
                    offset += written
                }
            }
            guard fsync(descriptor) == 0 else { throw failure("fsync", temporary) }
        } catch {
            _ = close(descriptor)
            _ = unlink(temporary)
            throw error
        }
        guard close(descriptor) == 0 else { throw failure("close", temporary) }
        guard rename(temporary, directory + "/" + fileName) == 0 else {
            _ = unlink(temporary)
            throw failure("rename", temporary)
        }
        try synchronizeDirectory(directory)
    }

    /// Flushes a directory's entries.
    static func synchronizeDirectory(_ directory: String) throws {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open", directory) }
        defer { _ = close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("fsync", directory) }
    }

    /// Writes a file without flushing it: for building fixtures fast, never for a measured store.
    static func writeQuickly(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw BenchmarkFailure("Could not write the fixture file \(path)")
        }
    }

    private static func failure(_ call: String, _ path: String) -> BenchmarkFailure {
        BenchmarkFailure("\(call) failed on \(path): \(String(cString: strerror(errno)))")
    }
}
