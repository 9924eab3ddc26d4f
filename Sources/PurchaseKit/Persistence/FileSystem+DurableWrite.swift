import Foundation

extension FileSystem {
    /// Replaces `directory/fileName` with `data` so that, after a crash at any
    /// moment, the file holds either the whole old content or the whole new one.
    ///
    /// The data goes to a fresh temporary file in the same directory (rename is
    /// only atomic within one file system), which is flushed, closed and renamed
    /// over the target; then the directory is flushed so the rename itself
    /// survives a power loss. On any failure before the rename the temporary
    /// file is removed and the target is untouched. A failure of the final
    /// directory flush is reported too: the new content is in place but not
    /// known to be durable.
    func writeDurably(_ data: Data, directory: String, fileName: String, mode: UInt16) throws(FileSystemError) {
        let temporaryPath = directory + "/" + FileNameCoding.temporaryName()
        let descriptor = try createFile(atPath: temporaryPath, mode: mode)
        do throws(FileSystemError) {
            try write(data, to: descriptor, path: temporaryPath)
            try synchronize(descriptor, path: temporaryPath)
        } catch {
            // Clean-up errors are dropped: the first failure is the one worth reporting.
            try? close(descriptor, path: temporaryPath)
            _ = try? removeFile(atPath: temporaryPath)
            throw error
        }
        do throws(FileSystemError) {
            try close(descriptor, path: temporaryPath)
            try rename(temporaryPath, to: directory + "/" + fileName)
        } catch {
            _ = try? removeFile(atPath: temporaryPath)
            throw error
        }
        try synchronizeDirectory(atPath: directory)
    }

    /// Moves a file to another directory of the same file system with one atomic
    /// rename, then flushes both directories so that the move survives a power
    /// loss. A failure after the rename is reported; the file is then already
    /// in its new place.
    func moveDurably(from sourceDirectory: String, to destinationDirectory: String,
                     fileName: String, newName: String? = nil) throws(FileSystemError) {
        try rename(sourceDirectory + "/" + fileName, to: destinationDirectory + "/" + (newName ?? fileName))
        try synchronizeDirectory(atPath: destinationDirectory)
        try synchronizeDirectory(atPath: sourceDirectory)
    }
}
