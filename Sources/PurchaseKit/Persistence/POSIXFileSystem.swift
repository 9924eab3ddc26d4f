import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The real ``FileSystem``: thin wrappers over the POSIX calls, retrying on
/// `EINTR` and keeping `errno` on failure.
package struct POSIXFileSystem: FileSystem {
    /// The real file system.
    package init() {}

    package func makeDirectory(atPath path: String, mode: UInt16) throws(FileSystemError) -> Bool {
        if mkdir(path, mode_t(mode)) == 0 { return true }
        let failure = errno
        switch failure {
        case EEXIST:
            guard isDirectory(path) else { throw FileSystemError(operation: .makeDirectory, errorNumber: ENOTDIR, path: path) }
            return false
        case ENOENT:
            // A missing parent: create it, then try again.
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else {
                throw FileSystemError(operation: .makeDirectory, errorNumber: failure, path: path)
            }
            _ = try makeDirectory(atPath: parent, mode: mode)
            if mkdir(path, mode_t(mode)) == 0 { return true }
            if errno == EEXIST, isDirectory(path) { return false }
            throw FileSystemError(operation: .makeDirectory, errorNumber: errno, path: path)
        default:
            throw FileSystemError(operation: .makeDirectory, errorNumber: failure, path: path)
        }
    }

    private func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    package func setPermissions(atPath path: String, mode: UInt16) throws(FileSystemError) {
        guard chmod(path, mode_t(mode)) == 0 else {
            throw FileSystemError(operation: .setPermissions, errorNumber: errno, path: path)
        }
    }

    package func createFile(atPath path: String, mode: UInt16) throws(FileSystemError) -> Int32 {
        while true {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
            if descriptor >= 0 { return descriptor }
            if errno != EINTR { throw FileSystemError(operation: .create, errorNumber: errno, path: path) }
        }
    }

    package func write(_ data: Data, to descriptor: Int32, path: String) throws(FileSystemError) {
        let failure: Int32? = data.withUnsafeBytes { buffer -> Int32? in
            guard let base = buffer.baseAddress else { return nil }
            return Self.writeFully(buffer.count) { done in
                #if canImport(Darwin)
                Darwin.write(descriptor, base + done, buffer.count - done)
                #elseif canImport(Glibc)
                Glibc.write(descriptor, base + done, buffer.count - done)
                #else
                Musl.write(descriptor, base + done, buffer.count - done)
                #endif
            }
        }
        if let failure { throw FileSystemError(operation: .write, errorNumber: failure, path: path) }
    }

    package func synchronize(_ descriptor: Int32, path: String) throws(FileSystemError) {
        #if canImport(Darwin)
        // On Apple platforms fsync only reaches the drive's cache; F_FULLFSYNC
        // asks the drive to flush it. File systems without it fall back to fsync.
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
        #endif
        while fsync(descriptor) != 0 {
            if errno != EINTR { throw FileSystemError(operation: .synchronize, errorNumber: errno, path: path) }
        }
    }

    package func synchronizeData(_ descriptor: Int32, path: String) throws(FileSystemError) {
        #if canImport(Darwin)
        // Darwin's fdatasync stops at the drive's cache, like its fsync: only F_FULLFSYNC reaches the medium.
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
        while fsync(descriptor) != 0 {
            if errno != EINTR { throw FileSystemError(operation: .synchronizeData, errorNumber: errno, path: path) }
        }
        #else
        while fdatasync(descriptor) != 0 {
            if errno != EINTR { throw FileSystemError(operation: .synchronizeData, errorNumber: errno, path: path) }
        }
        #endif
    }

    package func close(_ descriptor: Int32, path: String) throws(FileSystemError) {
        #if canImport(Darwin)
        let result = Darwin.close(descriptor)
        #elseif canImport(Glibc)
        let result = Glibc.close(descriptor)
        #else
        let result = Musl.close(descriptor)
        #endif
        // After EINTR the descriptor is closed all the same (Linux, and Darwin's
        // close semantics); retrying could close a descriptor another thread reused.
        if result != 0, errno != EINTR {
            throw FileSystemError(operation: .close, errorNumber: errno, path: path)
        }
    }

    package func rename(_ source: String, to destination: String) throws(FileSystemError) {
        #if canImport(Darwin)
        let result = Darwin.rename(source, destination)
        #elseif canImport(Glibc)
        let result = Glibc.rename(source, destination)
        #else
        let result = Musl.rename(source, destination)
        #endif
        guard result == 0 else { throw FileSystemError(operation: .rename, errorNumber: errno, path: destination) }
    }

    @discardableResult
    package func removeFile(atPath path: String) throws(FileSystemError) -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw FileSystemError(operation: .remove, errorNumber: errno, path: path)
    }

    package func preallocate(_ descriptor: Int32, length: Int, path: String) throws(FileSystemError) {
        #if os(Linux)
        // Zeros written, not `fallocate`d: a range that `fallocate` reserves
        // is marked unwritten, and the first write into each block turns it
        // into written data, a change of the file's block map that the next
        // `fdatasync` writes as a block of its own. Blocks written with
        // zeros are plain data, and a record written over them flushes as
        // data alone (about a tenth less a flush on ext4). The zeros cost one
        // larger flush per reservation.
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw FileSystemError(operation: .preallocate, errorNumber: errno, path: path)
        }
        let start = Int(info.st_size)
        guard start < length else { return }
        let chunk = [UInt8](repeating: 0, count: min(length - start, 64 * 1024))
        let failure = Self.writeFully(length - start) { done in
            let count = min(chunk.count, length - start - done)
            return chunk.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, count, off_t(start + done)) }
        }
        // Out of space, say: what was reserved stays reserved.
        if let failure { throw FileSystemError(operation: .preallocate, errorNumber: failure, path: path) }
        #endif
    }

    package func synchronizeFile(atPath path: String) throws(FileSystemError) {
        var descriptor: Int32
        repeat {
            // fsync flushes the file's pages whatever the descriptor's access mode.
            descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw FileSystemError(operation: .synchronize, errorNumber: errno, path: path) }
        defer { try? close(descriptor, path: path) }
        try synchronize(descriptor, path: path)
    }

    package func synchronizeDirectory(atPath path: String) throws(FileSystemError) {
        var descriptor: Int32
        repeat {
            descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw FileSystemError(operation: .synchronizeDirectory, errorNumber: errno, path: path) }
        // Closing a read-only descriptor cannot lose data; the fsync result is what matters.
        defer { try? close(descriptor, path: path) }
        while fsync(descriptor) != 0 {
            if errno != EINTR { throw FileSystemError(operation: .synchronizeDirectory, errorNumber: errno, path: path) }
        }
    }

    package func readRegularFile(atPath path: String, maximumSize: Int) throws(FileSystemError) -> FileContents {
        // Look before opening: opening a device or a FIFO can have effects of its own.
        var info = stat()
        guard lstat(path, &info) == 0 else { throw FileSystemError(operation: .read, errorNumber: errno, path: path) }
        if let unusable = UnusableFile.kind(ofMode: info.st_mode) { return .unusable(unusable) }
        if Int64(info.st_size) > Int64(maximumSize) { return .unusable(.tooLarge(size: Int64(info.st_size), limit: maximumSize)) }
        // The entry may be swapped between the look and the open: O_NOFOLLOW refuses
        // a link, O_NONBLOCK keeps a FIFO from blocking the open, and fstat checks
        // what was actually opened.
        var descriptor: Int32
        repeat {
            descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else {
            let failure = errno
            if failure == ELOOP { return .unusable(.symbolicLink) }
            if failure == ENXIO { return .unusable(.socket) }
            throw FileSystemError(operation: .read, errorNumber: failure, path: path)
        }
        defer { try? close(descriptor, path: path) }
        guard fstat(descriptor, &info) == 0 else { throw FileSystemError(operation: .read, errorNumber: errno, path: path) }
        if let unusable = UnusableFile.kind(ofMode: info.st_mode) { return .unusable(unusable) }
        // Read at most one byte more than allowed: enough to tell that a file grew past the limit.
        // The buffer starts at the size fstat reported, so that a large file (a journal's
        // snapshot) is read straight into place, without growing and copying.
        let limit = maximumSize + 1
        var data = Data(count: min(limit, max(Int(info.st_size) + 1, 4096)))
        var filled = 0
        while filled < limit {
            if filled == data.count { data.count = min(limit, data.count * 2) }
            let wanted = data.count - filled
            let count = data.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, wanted) }
            if count > 0 {
                filled += count
            } else if count == 0 {
                data.count = filled
                return .data(data)
            } else if errno != EINTR {
                throw FileSystemError(operation: .read, errorNumber: errno, path: path)
            }
        }
        return .unusable(.tooLarge(size: Int64(filled), limit: maximumSize))
    }

    package func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] {
        guard let directory = opendir(path) else { throw FileSystemError(operation: .list, errorNumber: errno, path: path) }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw FileSystemError(operation: .list, errorNumber: errno, path: path) }
                return names
            }
            let name = withUnsafePointer(to: &entry.pointee.d_name) { field in
                field.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: field.pointee)) {
                    String(cString: $0)
                }
            }
            if name != ".", name != ".." { names.append(name) }
        }
    }
}

extension POSIXFileSystem {
    /// Writes `count` bytes with `call`, which is handed how many are done
    /// and returns what one system call wrote (or -1), until all are
    /// written. Retries on `EINTR`; returns the error number otherwise, or
    /// `EIO` for a write that makes no progress, rather than spin.
    private static func writeFully(_ count: Int, _ call: (_ done: Int) -> Int) -> Int32? {
        var done = 0
        while done < count {
            let written = call(done)
            if written > 0 {
                done += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return written < 0 ? errno : EIO
            }
        }
        return nil
    }
}
