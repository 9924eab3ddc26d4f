import Foundation
import PurchaseKit
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The contents of a ``SimulatedDisk``: the live tree that a running process
/// sees, and enough history to work out what a power loss may leave of it.
///
/// Nodes stand for inodes: a directory entry names a node, and a node outlives
/// its names while a descriptor or a not-yet-durable entry still refers to it.
/// Each file keeps its live bytes and the bytes its last `fsync` made durable.
/// Directory entries are kept as a durable table per directory plus a log of
/// the creations, renames and deletions since; a directory `fsync` marks the
/// log's changes to that directory durable, and the durable head of the log is
/// folded into the tables.
struct DiskTree: Sendable {
    typealias NodeID = Int

    /// A failed call: the `errno` the real call would set.
    struct Failure: Error, Sendable {
        var errorNumber: Int32
    }

    /// A regular file: what a process reads, and what survives a power loss for sure.
    struct File: Sendable {
        var live = Data()
        var durable = Data()
    }

    enum Node: Sendable {
        case file(File)
        /// A directory and its live entries.
        case directory([String: NodeID])
    }

    /// One name in one directory.
    struct Entry: Sendable, Hashable {
        var directory: NodeID
        var name: String
        var node: NodeID
    }

    /// One change to directory entries. A creation only adds, a deletion only
    /// removes, a rename does both; each half becomes durable when its
    /// directory is flushed.
    struct Change: Sendable {
        var addition: Entry?
        var removal: Entry?
        var additionIsDurable = false
        var removalIsDurable = false

        var isDurable: Bool {
            (addition == nil || additionIsDurable) && (removal == nil || removalIsDurable)
        }
    }

    static let rootID: NodeID = 1

    private(set) var nodes: [NodeID: Node] = [rootID: .directory([:])]
    private var modes: [NodeID: UInt16] = [rootID: 0o755]
    /// The entries every directory had when the log was last folded in.
    private(set) var durableEntries: [NodeID: [String: NodeID]] = [rootID: [:]]
    /// Entry changes since then, oldest first; at least the first is not durable.
    private(set) var changes: [Change] = []
    private var nextNodeID = rootID + 1
    /// Open descriptors, the file each writes to, and where its next write goes.
    private var openFiles: [Int32: (node: NodeID, offset: Int)] = [:]
    private var nextDescriptor: Int32 = 3

    // MARK: Looking up

    private static func components(of path: String) throws(Failure) -> [String] {
        guard path.hasPrefix("/") else { throw Failure(errorNumber: EINVAL) }
        return path.split(separator: "/").map(String.init)
    }

    private func entries(of node: NodeID) throws(Failure) -> [String: NodeID] {
        guard case .directory(let entries) = nodes[node] else { throw Failure(errorNumber: ENOTDIR) }
        return entries
    }

    /// The node a path names.
    func node(at path: String) throws(Failure) -> NodeID {
        var current = Self.rootID
        for name in try Self.components(of: path) {
            guard let next = try entries(of: current)[name] else { throw Failure(errorNumber: ENOENT) }
            current = next
        }
        return current
    }

    /// The directory holding a path's last component, and that component.
    private func parent(of path: String) throws(Failure) -> (directory: NodeID, name: String) {
        var names = try Self.components(of: path)
        guard let name = names.popLast() else { throw Failure(errorNumber: EBUSY) }  // the root itself
        let directory = try node(at: "/" + names.joined(separator: "/"))
        _ = try entries(of: directory)
        return (directory, name)
    }

    // MARK: Changing the live tree

    private mutating func newNode(_ node: Node, mode: UInt16) -> NodeID {
        let id = nextNodeID
        nextNodeID += 1
        nodes[id] = node
        modes[id] = mode
        if case .directory = node { durableEntries[id] = [:] }  // A new directory is empty for sure.
        return id
    }

    private mutating func setEntry(_ name: String, in directory: NodeID, to node: NodeID?) {
        guard case .directory(var entries) = nodes[directory] else { return }
        entries[name] = node
        nodes[directory] = .directory(entries)
    }

    /// `mkdir` of the path and of each missing parent; whether the last one was created.
    mutating func makeDirectory(at path: String, mode: UInt16) throws(Failure) -> Bool {
        var current = Self.rootID
        var created = false
        for name in try Self.components(of: path) {
            if let existing = try entries(of: current)[name] {
                _ = try entries(of: existing)
                current = existing
                created = false
            } else {
                let directory = newNode(.directory([:]), mode: mode)
                setEntry(name, in: current, to: directory)
                changes.append(Change(addition: Entry(directory: current, name: name, node: directory)))
                current = directory
                created = true
            }
        }
        return created
    }

    /// `chmod`. Modes are kept for inspection only and count as durable at once.
    mutating func setMode(at path: String, _ mode: UInt16) throws(Failure) {
        modes[try node(at: path)] = mode
    }

    /// `open(O_WRONLY | O_CREAT | O_EXCL)`: a new empty file and a descriptor for it.
    mutating func createFile(at path: String, mode: UInt16) throws(Failure) -> Int32 {
        let (directory, name) = try parent(of: path)
        guard try entries(of: directory)[name] == nil else { throw Failure(errorNumber: EEXIST) }
        let file = newNode(.file(File()), mode: mode)
        setEntry(name, in: directory, to: file)
        changes.append(Change(addition: Entry(directory: directory, name: name, node: file)))
        let descriptor = nextDescriptor
        nextDescriptor += 1
        openFiles[descriptor] = (file, 0)
        return descriptor
    }

    private func file(for descriptor: Int32) throws(Failure) -> (id: NodeID, file: File) {
        guard let id = openFiles[descriptor]?.node, case .file(let file) = nodes[id] else { throw Failure(errorNumber: EBADF) }
        return (id, file)
    }

    /// `write` at the descriptor's offset (the end, unless the file was
    /// preallocated): changes the live bytes only.
    mutating func write(_ data: Data, to descriptor: Int32) throws(Failure) {
        var (id, file) = try file(for: descriptor)
        let offset = openFiles[descriptor]?.offset ?? file.live.count
        let end = offset + data.count
        if offset == file.live.count {
            file.live.append(data)
        } else {
            if end > file.live.count { file.live.append(Data(count: end - file.live.count)) }
            file.live.replaceSubrange(offset..<end, with: data)
        }
        openFiles[descriptor]?.offset = end
        nodes[id] = .file(file)
    }

    /// `fallocate` from the start: extends the live bytes with zeros up to
    /// `length`, leaving the offset where it is. Like any unflushed change, a
    /// power loss may undo it.
    mutating func preallocate(_ descriptor: Int32, length: Int) throws(Failure) {
        var (id, file) = try file(for: descriptor)
        guard length > file.live.count else { return }
        file.live.append(Data(count: length - file.live.count))
        nodes[id] = .file(file)
    }

    /// `fsync` of a file: its live bytes become durable.
    mutating func synchronize(_ descriptor: Int32) throws(Failure) {
        var (id, file) = try file(for: descriptor)
        file.durable = file.live
        nodes[id] = .file(file)
    }

    /// `fsync` of a file opened by path: its live bytes become durable.
    mutating func synchronizeFile(at path: String) throws(Failure) {
        let id = try node(at: path)
        guard case .file(var file) = nodes[id] else { throw Failure(errorNumber: EISDIR) }
        file.durable = file.live
        nodes[id] = .file(file)
    }

    /// `close`.
    mutating func close(_ descriptor: Int32) throws(Failure) {
        guard openFiles.removeValue(forKey: descriptor) != nil else { throw Failure(errorNumber: EBADF) }
        if changes.isEmpty { collectGarbage() }
    }

    /// `rename` of a file, replacing any file at the destination. Directories
    /// are not renamed: the order store never does it, so it is not simulated.
    mutating func rename(_ source: String, to destination: String) throws(Failure) {
        let from = try parent(of: source)
        guard let node = try entries(of: from.directory)[from.name] else { throw Failure(errorNumber: ENOENT) }
        guard case .file = nodes[node] else { throw Failure(errorNumber: ENOTSUP) }
        let to = try parent(of: destination)
        let replaced = try entries(of: to.directory)[to.name]
        if let replaced, case .directory = nodes[replaced] { throw Failure(errorNumber: EISDIR) }
        if replaced == node { return }  // The same file under both names: POSIX does nothing.
        setEntry(from.name, in: from.directory, to: nil)
        setEntry(to.name, in: to.directory, to: node)
        changes.append(Change(addition: Entry(directory: to.directory, name: to.name, node: node),
                              removal: Entry(directory: from.directory, name: from.name, node: node)))
    }

    /// `unlink`; whether there was a file to delete.
    mutating func unlink(_ path: String) throws(Failure) -> Bool {
        let directory: NodeID, name: String
        do throws(Failure) {
            (directory, name) = try parent(of: path)
        } catch where error.errorNumber == ENOENT {
            return false
        }
        guard let node = try entries(of: directory)[name] else { return false }
        if case .directory = nodes[node] { throw Failure(errorNumber: EISDIR) }
        setEntry(name, in: directory, to: nil)
        changes.append(Change(removal: Entry(directory: directory, name: name, node: node)))
        return true
    }

    /// `fsync` of a directory: every change to its entries becomes durable. A
    /// rename whose source entry is durably gone is durable at its destination too,
    /// since a rename never loses its file.
    mutating func synchronizeDirectory(at path: String) throws(Failure) {
        let directory = try node(at: path)
        _ = try entries(of: directory)
        for index in changes.indices {
            if changes[index].addition?.directory == directory { changes[index].additionIsDurable = true }
            if changes[index].removal?.directory == directory {
                changes[index].removalIsDurable = true
                changes[index].additionIsDurable = true
            }
        }
        while let first = changes.first, first.isDurable {
            Self.apply(first, addition: true, removal: true, to: &durableEntries)
            changes.removeFirst()
        }
        if changes.isEmpty { collectGarbage() }
    }

    /// The live bytes of a file.
    func read(at path: String) throws(Failure) -> Data {
        switch nodes[try node(at: path)] {
        case .file(let file): return file.live
        default: throw Failure(errorNumber: EISDIR)
        }
    }

    /// The live names in a directory, sorted.
    func list(at path: String) throws(Failure) -> [String] {
        try entries(of: try node(at: path)).keys.sorted()
    }

    // MARK: Durable state

    /// Applies the chosen halves of a change to directory tables. A removal
    /// only removes the name if it still names the same node.
    static func apply(_ change: Change, addition: Bool, removal: Bool, to tables: inout [NodeID: [String: NodeID]]) {
        if removal, let entry = change.removal, tables[entry.directory]?[entry.name] == entry.node {
            tables[entry.directory]?[entry.name] = nil
        }
        if addition, let entry = change.addition {
            tables[entry.directory, default: [:]][entry.name] = entry.node
        }
    }

    /// Replaces everything with what survived a power loss: these directory
    /// tables and file contents become both the live and the durable state, and
    /// every descriptor is gone with the process that held it.
    mutating func restart(entries tables: [NodeID: [String: NodeID]], contents: [NodeID: Data]) {
        for (id, node) in nodes {
            switch node {
            case .directory: nodes[id] = .directory(tables[id] ?? [:])
            case .file(let file):
                let content = contents[id] ?? file.durable
                nodes[id] = .file(File(live: content, durable: content))
            }
        }
        durableEntries = tables
        changes = []
        openFiles = [:]
        collectGarbage()
    }

    /// Forgets the nodes nothing can reach any more. Only called with an empty
    /// log, when the live tables are the durable ones.
    private mutating func collectGarbage() {
        var reachable: Set<NodeID> = [Self.rootID]
        var pending = [Self.rootID]
        pending.append(contentsOf: openFiles.values.map(\.node))
        reachable.formUnion(openFiles.values.map(\.node))
        while let id = pending.popLast() {
            guard case .directory(let entries) = nodes[id] else { continue }
            for child in entries.values where reachable.insert(child).inserted { pending.append(child) }
        }
        for id in nodes.keys where !reachable.contains(id) {
            nodes[id] = nil
            modes[id] = nil
            durableEntries[id] = nil
        }
    }
}
