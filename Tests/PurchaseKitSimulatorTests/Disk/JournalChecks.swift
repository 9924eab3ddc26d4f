import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// What a journal store acknowledged, and what a power loss may leave of it.
///
/// The journal keeps records in order and a power loss keeps a prefix of
/// them, down to the last flush. So an order may come back as it was at the
/// last durable point, or as any version acknowledged since (a `created` or
/// `completed` save, open or straight into the archive, an archive: they
/// return before their flush), or as the
/// call in flight left it. A durable save, a removal and a launch (which
/// flushes what the previous process left) move the durable point.
struct JournalLedger: CrashLedger {
    private(set) var durable: [String: StoredOrder] = [:]
    private var acknowledged: [String: StoredOrder] = [:]
    private var loose: [String: [StoredOrder?]] = [:]
    private var inFlight: (id: String, state: StoredOrder?, isDurable: Bool)?

    /// Whether the store must have made a save durable before it returned.
    static func isDurable(_ status: OrderStatus) -> Bool { status != .created && status != .completed }

    mutating func begin(_ step: JournalStep) {
        switch step {
        case .open:
            inFlight = nil
        case .save(let order):
            inFlight = (order.id, StoredOrder(order: order, place: .open), Self.isDurable(order.status))
        case .legacySave(let order):
            inFlight = (order.id, StoredOrder(order: order, place: .open), true)
        case .archive(let id):
            inFlight = acknowledged[id].map { (id, StoredOrder(order: $0.order, place: .archived), false) }
        case .saveArchived(let order):
            inFlight = (order.id, StoredOrder(order: order, place: .archived), Self.isDurable(order.status))
        case .legacyArchive(let id):
            inFlight = acknowledged[id].map { (id, StoredOrder(order: $0.order, place: .archived), true) }
        case .remove(let id):
            inFlight = (id, nil, true)
        }
        if case .open = step { isOpening = true } else { isOpening = false }
    }

    private var isOpening = false

    mutating func acknowledge() {
        if let inFlight {
            acknowledged[inFlight.id] = inFlight.state
            if !inFlight.isDurable { loose[inFlight.id, default: []].append(inFlight.state) }
        }
        if inFlight?.isDurable == true || isOpening {
            durable = acknowledged
            loose = [:]
        }
        inFlight = nil
    }

    var ids: Set<String> {
        Set(durable.keys).union(acknowledged.keys).union(loose.keys).union(inFlight.map { [$0.id] } ?? [])
    }

    /// What a crash may leave of order `id` (nil: nothing).
    func allowed(_ id: String) -> [StoredOrder?] {
        var states: [StoredOrder?] = [durable[id]] + (loose[id] ?? [])
        if let inFlight, inFlight.id == id { states.append(inFlight.state) }
        return states
    }

    /// Whether an acknowledged version of `id` must be there, whatever the power loss.
    func mustSurvive(_ id: String) -> Bool { durable[id] != nil }
}

/// What a new process must find after a crash and a power loss: the store
/// opens; every order is in a state the ledger allows, once; every problem
/// is a damaged record set aside in the quarantine folder; and a second
/// launch finds the same orders, no problem, and no leftover file.
struct JournalChecks {
    let disk: SimulatedDisk
    let root: String

    func verify(_ ledger: JournalLedger) async -> [String] {
        let first: (report: OrderLoadReport, archived: [Order])
        do {
            first = try await load()
        } catch {
            return ["the store did not open after the power loss: \(error)"]
        }
        var failures = check(first.report.orders, first.archived, against: ledger)
        for problem in first.report.problems
        where problem.code != .persistenceCorrupt || !problem.message.contains("moved to quarantine/") {
            failures.append("a problem that is not damage set aside: \(problem)")
        }
        do {
            let second = try await load()
            if !second.report.problems.isEmpty { failures.append("the second launch found problems again: \(second.report.problems)") }
            if second.report.orders != first.report.orders || second.archived != first.archived {
                failures.append("the second launch found other orders than the first")
            }
            let leftovers = try disk.contentsOfDirectory(atPath: root + "/journal").filter { !$0.hasPrefix("snapshot-") && !$0.hasPrefix("log-") }
            if !leftovers.isEmpty { failures.append("files left in the journal folder: \(leftovers)") }
            for folder in ["orders", "archive", "ledger"] {
                let left = (try? disk.contentsOfDirectory(atPath: root + "/" + folder)) ?? []
                if !left.isEmpty { failures.append("FileOrderStore files left after the import: \(folder)/\(left)") }
            }
        } catch {
            failures.append("the second launch failed: \(error)")
        }
        return failures
    }

    private func load() async throws -> (report: OrderLoadReport, archived: [Order]) {
        let store = try JournalProcess.openStore(disk)
        let result = (try await store.loadOpenOrders(), try await store.archivedOrders())
        await store.close()
        return result
    }

    private func check(_ open: [Order], _ archived: [Order], against ledger: JournalLedger) -> [String] {
        var found: [String: [StoredOrder]] = [:]
        for order in open { found[order.id, default: []].append(StoredOrder(order: order, place: .open)) }
        for order in archived { found[order.id, default: []].append(StoredOrder(order: order, place: .archived)) }
        var failures: [String] = []
        for id in ledger.ids.union(found.keys).sorted() {
            let states = found[id] ?? []
            let allowed = ledger.allowed(id)
            let expected = allowed.map { $0?.description ?? "absent" }.joined(separator: " or ")
            guard states.count <= 1 else {
                failures.append("order \(id) is found twice (\(states)); expected \(expected)")
                continue
            }
            guard !allowed.contains(states.first) else { continue }
            let lost = ledger.mustSurvive(id) && states.isEmpty ? " — an acknowledged order was lost" : ""
            failures.append("order \(id) is \(states.first?.description ?? "missing")\(lost); expected \(expected)")
        }
        return failures
    }
}
