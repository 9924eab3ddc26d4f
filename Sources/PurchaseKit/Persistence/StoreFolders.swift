import Foundation

/// Creating a store's folders so that they survive a power loss.
enum StoreFolders {
    static let mode: UInt16 = 0o700

    /// Creates `root` and `folders` (and any missing parent), owner-only, and
    /// flushes every directory whose entries changed, up to the first parent
    /// that already existed.
    ///
    /// A root created here is `0700`; an existing root keeps its permissions,
    /// but the folders holding orders are always owner-only.
    static func prepare(root: String, folders: [String], fileSystem: any FileSystem) throws(PurchaseKitError) {
        do throws(FileSystemError) {
            let createdRoot = try fileSystem.makeDirectory(atPath: root, mode: mode)
            if createdRoot {
                // mkdir's mode is filtered by the umask; set it exactly.
                try fileSystem.setPermissions(atPath: root, mode: mode)
            }
            for folder in folders {
                _ = try fileSystem.makeDirectory(atPath: folder, mode: mode)
                try fileSystem.setPermissions(atPath: folder, mode: mode)
            }
            try fileSystem.synchronizeDirectory(atPath: root)
            if createdRoot {
                var folder = (root as NSString).deletingLastPathComponent
                try fileSystem.synchronizeDirectory(atPath: folder)
                // mkdir may have created parents too, each named in its own parent: flush up the
                // tree. Best effort: a folder that cannot be opened is not one the store created.
                while folder != "/", !folder.isEmpty {
                    folder = (folder as NSString).deletingLastPathComponent
                    guard (try? fileSystem.synchronizeDirectory(atPath: folder)) != nil else { break }
                }
            }
        } catch {
            throw PurchaseKitError.writeFailed(
                error, "The order store's folders could not be prepared", orderID: nil,
                advice: "Check that the directory is writable by this app and that the disk has space.")
        }
    }
}
