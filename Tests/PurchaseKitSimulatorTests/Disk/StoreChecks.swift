import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// What a new process must find after a crash and a power loss: the store
/// opens; every order is as acknowledged or as the call in flight left it,
/// whole; damaged files are reported with a typed problem and moved aside; and
/// a second launch finds the same orders and nothing left to clean up.
struct StoreChecks {
    let disk: SimulatedDisk
    let fileSystem: any FileSystem
    let root: String

    /// One line per broken promise.
    func verify(_ ledger: StoreLedger, leftovers: Bool) async -> [String] {
        let tornBefore = ((try? disk.contentsOfDirectory(atPath: root + "/orders")) ?? []).contains(StoreLeftovers.tornName)
        let first: (report: OrderLoadReport, archived: [Order])
        do {
            first = try await load()
        } catch {
            return ["the store did not open after the power loss: \(error)"]
        }
        var failures = checkOrders(first.report.orders, first.archived, against: ledger)
        for problem in first.report.problems
        where problem.code != .persistenceCorrupt || !problem.message.contains("moved to quarantine/") {
            failures.append("a problem that is not a damaged file set aside: \(problem)")
        }
        if tornBefore, !first.report.problems.contains(where: { $0.message.contains(StoreLeftovers.tornName) }) {
            failures.append("the damaged file was not reported")
        }
        do {
            let second = try await load()
            if !second.report.problems.isEmpty { failures.append("the second launch found problems again: \(second.report.problems)") }
            if second.report.orders != first.report.orders || second.archived != first.archived {
                failures.append("the second launch found other orders than the first")
            }
            failures += try checkFolders(open: first.report.orders.count, archived: first.archived.count, leftovers: leftovers)
        } catch {
            failures.append("the second launch failed: \(error)")
        }
        return failures
    }

    private func load() async throws -> (report: OrderLoadReport, archived: [Order]) {
        let store = try FileStoreProcess.openStore(fileSystem)
        return (try await store.loadOpenOrders(), try await store.archivedOrders())
    }

    private func checkOrders(_ open: [Order], _ archived: [Order], against ledger: StoreLedger) -> [String] {
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
            let what = states.first.map { "is \($0)" + (allowed.contains { $0?.order == states.first?.order } ? "" : " (not a version saved)") }
            let acknowledged = ledger.acknowledged[id] != nil && states.isEmpty ? " — an acknowledged order was lost" : ""
            failures.append("order \(id) \(what ?? "is missing")\(acknowledged); expected \(expected)")
        }
        return failures
    }

    /// No temporary or damaged file is left among the orders; a planted damaged file is kept in quarantine.
    private func checkFolders(open: Int, archived: Int, leftovers: Bool) throws -> [String] {
        var failures: [String] = []
        let orders = try disk.contentsOfDirectory(atPath: root + "/orders")
        let archive = try disk.contentsOfDirectory(atPath: root + "/archive")
        if orders.count != open || archive.count != archived {
            failures.append("the folders hold other files than the orders: orders/\(orders), archive/\(archive)")
        }
        if leftovers {
            let quarantined = try disk.contentsOfDirectory(atPath: root + "/quarantine")
            let kept = try quarantined.contains { try disk.readFile(atPath: root + "/quarantine/" + $0) == StoreLeftovers.tornBytes }
            if !kept { failures.append("the damaged file is not in quarantine: \(quarantined)") }
        }
        return failures
    }
}

/// What interrupted and damaged writes leave in a store's folders.
enum StoreLeftovers {
    static let tornName = "order-torn.json"
    static let tornBytes = Data(#"{"id":"torn","productID":"com.exa"#.utf8)

    /// A temporary file of an interrupted save, a torn order file, and an
    /// archived copy of the first open order (a re-open interrupted before the
    /// archived copy was deleted), all durable.
    static func plant(on disk: SimulatedDisk, root: String) throws(FileSystemError) {
        let orders = root + "/orders", archive = root + "/archive"
        guard let openFile = try disk.contentsOfDirectory(atPath: orders).first else { return }
        let openBytes = try disk.readFile(atPath: orders + "/" + openFile)
        try write(openBytes.prefix(20), to: orders + "/.tmp-interrupted.partial", on: disk)
        try write(tornBytes, to: orders + "/" + tornName, on: disk)
        try write(openBytes, to: archive + "/" + openFile, on: disk)
        try disk.synchronizeDirectory(atPath: orders)
        try disk.synchronizeDirectory(atPath: archive)
    }

    private static func write(_ data: Data, to path: String, on disk: SimulatedDisk) throws(FileSystemError) {
        let descriptor = try disk.createFile(atPath: path, mode: 0o600)
        try disk.write(data, to: descriptor, path: path)
        try disk.synchronize(descriptor, path: path)
        try disk.close(descriptor, path: path)
    }
}
