import Foundation

extension FileOrderStore {
    /// Opens the store in `directory` over another file system than the real
    /// one, such as the simulator's power-loss disk. Package-only: apps always
    /// get the real file system, and the seam stays free to change.
    package init(directory: URL, fileSystem: any FileSystem,
                 configuration: Configuration = .init()) throws(PurchaseKitError) {
        var configuration = configuration
        configuration.fileSystem = fileSystem
        try self.init(directory: directory, configuration: configuration)
    }
}

extension FileSystemError {
    /// A failure of `operation` on `path` with `errno` value `errorNumber`, for
    /// file systems outside this module.
    package init(_ operation: Operation, errorNumber: Int32, path: String) {
        self.init(operation: operation, errorNumber: errorNumber, path: path)
    }
}
