import Foundation

extension JournalWriter {
    /// What the thread works with: only the one holding the loop's lock touches it.
    struct Context {
        let fileSystem: any FileSystem
        /// The folder holding the journal files and the snapshots.
        let folder: String
        /// How much room a journal file reserves at a time (0: none).
        let reservation: Int
        let queue: Locked<Queue>
        /// The journal being appended to, once its first record is written.
        var journal: OpenJournal?
        /// The generation of the next journal file to create.
        var nextGeneration: UInt64 = 1
        /// Why writing stopped, until the store reloads.
        private(set) var failure: FileSystemError?
        /// Each journal file that was open when writing stopped, and how much
        /// of it had been flushed: a reload does not count what lies past that
        /// (see ``UnconfirmedTail``). Kept for the writer's life, so that a
        /// reload whose fresh snapshot failed, or a later one, still leaves
        /// those bytes out; a journal file's name is never used again, so an
        /// entry whose file a snapshot replaced is harmless.
        private(set) var unconfirmed: [UnconfirmedTail] = []
        /// The records written to the journal since its last flush: those
        /// acknowledged before their flush among them are not durable yet.
        var unflushed = Data()
        /// The records lost to the failure since the last reload: written
        /// after the last good flush (see ``unconfirmed``), or never written.
        /// Those acknowledged before their flush (see ``JournalRedo``) were
        /// acknowledged all the same: the reload does them again.
        var dropped = Data()

        /// Closes the journal; the next record starts the file of `nextGeneration`.
        mutating func reset(nextGeneration: UInt64) {
            closeJournal()
            unflushed = Data()
            self.nextGeneration = nextGeneration
            failure = nil
            queue.withLock { $0.hasFailed = false }
        }

        /// Flushes and closes the journal; the next record starts the file of
        /// `generation`. The flush keeps records durable in the order they were
        /// made: a flush of the new file must not make a record durable while an
        /// earlier one, left unflushed in the old file, can still be lost.
        mutating func rotate(to generation: UInt64) {
            if failure == nil {
                do throws(FileSystemError) {
                    try flushJournal()
                } catch {
                    fail(error)
                }
            }
            closeJournal()
            nextGeneration = generation
        }

        /// Makes everything written to the journal durable: its data, and its directory entry.
        mutating func flushJournal() throws(FileSystemError) {
            guard var open = journal else { return }
            if open.hasUnflushedBytes {
                try fileSystem.synchronizeData(open.descriptor, path: open.path)
                open.hasUnflushedBytes = false
                open.flushedSize = open.size
                journal = open
            }
            if !open.entryIsDurable {
                try fileSystem.synchronizeDirectory(atPath: folder)
                open.entryIsDurable = true
                journal = open
            }
            unflushed.removeAll(keepingCapacity: true)
        }

        /// Closes the journal file, if one is open. A close error changes
        /// nothing: whatever was flushed is durable, and the rest never was.
        mutating func closeJournal() {
            if let journal { try? fileSystem.close(journal.descriptor, path: journal.path) }
            journal = nil
        }

        mutating func fail(_ error: FileSystemError) {
            failure = error
            dropped.append(unflushed)
            unflushed = Data()
            if let journal {
                // No record of a file whose entry never became durable was confirmed.
                unconfirmed.append(UnconfirmedTail(path: journal.path, confirmedSize: journal.entryIsDurable ? journal.flushedSize : 0))
            }
            closeJournal()
            queue.withLock { $0.hasFailed = true }
        }
    }

    /// An open journal file.
    struct OpenJournal {
        var descriptor: Int32
        var path: String
        /// Bytes written: where the next record goes.
        var size = 0
        /// Bytes written when the data was last flushed.
        var flushedSize = 0
        /// Bytes reserved with `fallocate` (zeros until written).
        var reserved = 0
        /// Bytes were written since the last flush.
        var hasUnflushedBytes = false
        /// The file's directory entry is durable, so a flushed record in it survives a power loss.
        var entryIsDurable = false
    }

    /// What follows the last successful flush of a journal file whose write
    /// or flush failed. Those bytes may be in the page cache only: after a
    /// failed write-back, Linux reports the error once, may mark the pages
    /// clean, and then serves reads and acknowledges later flushes without
    /// writing them. A reload that read them back would take records whose
    /// calls failed for durable ones, so it sets them aside instead.
    struct UnconfirmedTail: Sendable, Equatable {
        var path: String
        var confirmedSize: Int
    }
}
