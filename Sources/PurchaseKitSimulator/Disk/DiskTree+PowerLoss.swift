import Foundation
import PurchaseKit

extension DiskTree {
    /// Picks one of the outcomes a power loss allows for each change that is
    /// not durable yet. Outcomes are listed from "everything kept" to "only what
    /// was flushed", so the two fixed policies take the first or the last.
    struct Chooser {
        private let policy: SimulatedDisk.PowerLoss
        private var generator: SeededRandomNumberGenerator

        init(_ policy: SimulatedDisk.PowerLoss) {
            self.policy = policy
            if case .seeded(let seed) = policy {
                generator = SeededRandomNumberGenerator(seed: seed)
            } else {
                generator = SeededRandomNumberGenerator(seed: 0)
            }
        }

        /// An index into `count` outcomes.
        mutating func pick(_ count: Int) -> Int {
            switch policy {
            case .everything: 0
            case .durableOnly: count - 1
            case .seeded: Int.random(in: 0..<count, using: &generator)
            }
        }

        /// A number in `range`, for where a torn write stops.
        mutating func number(in range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }

        /// Bytes that were never written: what a block allocated but not filled reads back as.
        mutating func garbage(_ count: Int) -> Data {
            Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        }
    }

    /// What the disk holds after a power loss, drawn by `chooser`: the directory
    /// tables and the content of every file whose last writes were not flushed.
    ///
    /// Changes are decided in log order, then files by node number; both orders
    /// come from the order of the calls, so a seed replays exactly.
    func survivors(_ chooser: inout Chooser) -> (entries: [NodeID: [String: NodeID]], contents: [NodeID: Data]) {
        var tables = durableEntries
        for change in changes {
            let outcomes = Self.outcomes(of: change)
            let (addition, removal) = outcomes[chooser.pick(outcomes.count)]
            Self.apply(change, addition: addition, removal: removal, to: &tables)
        }
        var contents: [NodeID: Data] = [:]
        for id in nodes.keys.sorted() {
            guard case .file(let file) = nodes[id], file.live != file.durable else { continue }
            contents[id] = Self.content(of: file, &chooser)
        }
        return (tables, contents)
    }

    /// Which halves of a change may survive, as (addition kept, removal kept),
    /// from "all kept" to "only the durable halves kept". A rename never loses
    /// its file: without a flush it happens whole or not at all, or, between two
    /// directories, may leave the file under both names.
    static func outcomes(of change: Change) -> [(addition: Bool, removal: Bool)] {
        let addition = change.addition != nil && !change.additionIsDurable
        let removal = change.removal != nil && !change.removalIsDurable
        switch (addition, removal) {
        case (false, false):
            return [(true, true)]
        case (true, true):
            let crossesDirectories = change.addition?.directory != change.removal?.directory
            return crossesDirectories ? [(true, true), (true, false), (false, false)] : [(true, true), (false, false)]
        case (true, false):
            return [(true, true), (false, true)]
        case (false, true):
            return [(true, true), (true, false)]
        }
    }

    /// The content of a file whose last writes were not flushed: all of them,
    /// a torn prefix (alone, or padded to the written length with zeros or with
    /// garbage), or none. Flushed bytes are always kept.
    static func content(of file: File, _ chooser: inout Chooser) -> Data {
        let kept = zip(file.live, file.durable).prefix { $0 == $1 }.count
        let outcome = chooser.pick(5)
        if outcome == 0 { return file.live }
        guard outcome < 4, kept < file.live.count else { return file.durable }
        let end = chooser.number(in: kept..<file.live.count)
        var torn = Data(file.live.prefix(end))
        let padding = file.live.count - end
        if outcome == 2 { torn.append(Data(count: padding)) }
        if outcome == 3 { torn.append(chooser.garbage(padding)) }
        return torn
    }
}
