import Foundation
import XCTest
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

/// The engine on the journal store: a kill at every point of a purchase, and
/// a power loss at every file-system call of one, then a relaunch from what
/// the disk kept. Every paid transaction ends delivered exactly once and
/// finished; nothing unpaid is charged.
final class PurchaseEngineJournalStoreTests: XCTestCase {
    private let points: [KillSwitch.Point] =
        (1...5).flatMap { [KillSwitch.Point.beforeSave($0), .afterSave($0)] }
        + [.beforeVerify(1), .afterVerify(1), .beforeFinish(1), .afterFinish(1)]

    func testAKillAtEveryPointThenARelaunchDeliversExactlyOnce() async throws {
        for point in points {
            let world = World()
            let directory = try makeTemporaryDirectory(self)
            let kill = KillSwitch(at: point)
            let firstStore = try JournalOrderStore(directory: directory, configuration: .init(clock: world.clock))
            let dying = try await world.engine(world.dyingConfiguration(kill, orders: firstStore))
            let call = Task { try? await dying.purchase(productID: Catalog.coins, user: "alice", metadata: ["campaign": "spring"]) }
            await kill.waitForDeath(of: dying, during: call)
            // The process is gone, and its store's thread with it.
            await firstStore.abandon()

            let store = try JournalOrderStore(directory: directory, configuration: .init(clock: world.clock))
            let relaunched = try await world.engine(world.configuration(store: store))
            try await assertDeliveredExactlyOnce(world, relaunched, store, "\(point)")
            let history = try await store.orders(forUser: "alice")
            // The created record waits in memory for the purchasing one (nothing is charged
            // before that is durable): a kill in between loses the order, and nothing else.
            let expected = [KillSwitch.Point.beforeSave(1), .afterSave(1), .beforeSave(2)].contains(point) ? 0 : 1
            XCTAssertEqual(history.count, expected, "\(point)")
            // Closed before the next point: a store left open keeps writing after the test removed its folder.
            await relaunched.shutdown()
            await store.close()
        }
    }

    func testAPowerLossAtEveryFileSystemCallOfAPurchaseThenARelaunchDeliversExactlyOnce() async throws {
        // With the store's own thread, and with its calls made on the calling thread (as in the fault simulation).
        for onCallingThread in [false, true] {
            let (calls, runs) = try await enumeratePowerLosses { point, policy in
                try await runPurchase(crashingAt: point, policy: policy, onCallingThread: onCallingThread)
            }
            XCTAssertGreaterThan(calls, 7, "a purchase makes its saves, flushes and archive through the disk")
            print("power loss during a purchase (on the calling thread: \(onCallingThread)): \(calls) calls, \(runs) runs")
        }
    }

    func testSixtyFourPurchasesInFlightOnTheStoresOwnThreadAreEachDeliveredOnceToTheirBuyer() async throws {
        // The library's defaults (store and verifier timeouts on), on a real
        // directory, with the journal's own thread, which gathers the
        // interleaved saves of 64 orders into shared flushes. The verifier
        // answers at once, as one that checks
        // on the device does, so timed calls often end before their caller
        // asks for the answer. Under the thread sanitizer this is also the
        // check that the engine stays on its actor throughout.
        let world = World(engineDefaults: .library)
        let directory = try makeTemporaryDirectory(self)
        let store = try JournalOrderStore(directory: directory, configuration: .init(clock: world.clock))
        let verifier = InstantVerifier()
        var configuration = world.configuration(store: store, verifier: verifier)
        configuration.limits.maximumConcurrentPurchases = 64
        let engine = try await world.engine(configuration)
        let users = (0..<64).map { "user-\($0)" }
        let rounds = 16
        let paid = try await withThrowingTaskGroup(of: Int.self) { group in
            for user in users {
                group.addTask {
                    var paid = 0
                    for _ in 0..<rounds {
                        if case .success = try await engine.purchase(productID: Catalog.coins, user: user) { paid += 1 }
                    }
                    return paid
                }
            }
            return try await group.reduce(0, +)
        }
        XCTAssertEqual(paid, users.count * rounds, "every call was answered with its delivered order")
        await engine.waitUntilIdle()
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertTrue(unfinished.isEmpty, "unfinished \(unfinished)")
        let transactions = await world.store.allTransactions()
        let credits = verifier.credits
        XCTAssertEqual(transactions.count, users.count * rounds)
        XCTAssertEqual(Set(credits.keys), Set(transactions.map(\.id)), "every transaction was delivered")
        XCTAssertTrue(credits.values.allSatisfy { $0.count == 1 }, "\(credits.filter { $0.value.count != 1 })")
        for user in users {
            let balance = try await engine.consumableBalance(user: user)
            XCTAssertEqual(balance, [Catalog.coins: rounds], user)
        }
        await engine.shutdown()

        let (reopened, report) = try await reopen(store, directory)
        XCTAssertEqual(report.orders.map(\.id), [], "every order ended and was archived")
        XCTAssertTrue(report.problems.isEmpty, "\(report.problems)")
        for user in users {
            let history = try await reopened.orders(forUser: user)
            XCTAssertEqual(history.map(\.status), Array(repeating: .completed, count: rounds), user)
        }
        await reopened.close()
    }

    /// One purchase on a fresh disk with the crash armed after launch; returns whether it fired.
    private func runPurchase(crashingAt point: SimulatedDisk.CrashPoint, policy: SimulatedDisk.PowerLoss,
                             onCallingThread: Bool) async throws -> Bool {
        let world = World()
        let disk = SimulatedDisk()
        _ = try disk.makeDirectory(atPath: "/app", mode: 0o755)
        try disk.synchronizeDirectory(atPath: "/")
        let kill = KillSwitch(at: nil)
        let files = DyingDisk(disk: disk, kill: kill)
        let directory = URL(fileURLWithPath: "/app/orders", isDirectory: true)
        var configuration = JournalOrderStore.Configuration(clock: world.clock)
        configuration.writesOnCallingThread = onCallingThread
        let firstStore = try JournalOrderStore(directory: directory, fileSystem: files, configuration: configuration)
        let dying = try await world.engine(world.dyingConfiguration(kill, orders: firstStore))
        disk.crash(at: point)
        let purchase = Task { try? await dying.purchase(productID: Catalog.coins, user: "alice") }
        // Either the crash fires (and kills the process), or the purchase runs to rest first.
        await kill.waitUntilDead(orAfter: {
            _ = await purchase.value
            await dying.waitUntilIdle()
            await firstStore.waitUntilWritten()
        })
        let fired = disk.isDown
        await firstStore.abandon()
        disk.powerLoss(policy)

        let store = try JournalOrderStore(directory: directory, fileSystem: disk, configuration: configuration)
        let relaunched = try await world.engine(world.configuration(store: store))
        try await assertDeliveredExactlyOnce(world, relaunched, store, "crash \(point), \(policy)")
        let report = try await store.loadOpenOrders()
        XCTAssertTrue(report.orders.allSatisfy { !$0.status.owesDelivery }, "crash \(point), \(policy): \(report.orders)")
        await store.close()
        return fired
    }

    private func assertDeliveredExactlyOnce(_ world: World, _ engine: PurchaseEngine, _ store: JournalOrderStore,
                                            _ label: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let unfinished = await world.store.unfinishedTransactions()
        XCTAssertTrue(unfinished.isEmpty, "\(label): unfinished \(unfinished)", file: file, line: line)
        let credits = await world.creditCounts()
        XCTAssertTrue(credits.values.allSatisfy { $0 == 1 }, "\(label): \(credits)", file: file, line: line)
        let balance = try await engine.consumableBalance(user: "alice")
        XCTAssertEqual(balance, credits.isEmpty ? [:] : [Catalog.coins: 1], label, file: file, line: line)
        let history = try await store.orders(forUser: "alice")
        XCTAssertLessThanOrEqual(history.count, 1, label, file: file, line: line)
        if let order = history.first {
            let expected: Set<OrderStatus> = credits.isEmpty ? [.failed, .purchasing, .created] : [.completed]
            XCTAssertTrue(expected.contains(order.status), "\(label): \(order.status)", file: file, line: line)
        }
    }
}

/// The simulated disk, telling the kill switch when the process died at its crash point.
private struct DyingDisk: FileSystem {
    let disk: SimulatedDisk
    let kill: KillSwitch

    private func call<T>(_ body: () throws(FileSystemError) -> T) throws(FileSystemError) -> T {
        defer { if disk.isDown { kill.killNow() } }
        return try body()
    }

    func makeDirectory(atPath path: String, mode: UInt16) throws(FileSystemError) -> Bool { try call { () throws(FileSystemError) in try disk.makeDirectory(atPath: path, mode: mode) } }
    func setPermissions(atPath path: String, mode: UInt16) throws(FileSystemError) { try call { () throws(FileSystemError) in try disk.setPermissions(atPath: path, mode: mode) } }
    func createFile(atPath path: String, mode: UInt16) throws(FileSystemError) -> Int32 { try call { () throws(FileSystemError) in try disk.createFile(atPath: path, mode: mode) } }
    func write(_ data: Data, to descriptor: Int32, path: String) throws(FileSystemError) { try call { () throws(FileSystemError) in try disk.write(data, to: descriptor, path: path) } }
    func synchronize(_ descriptor: Int32, path: String) throws(FileSystemError) { try call { () throws(FileSystemError) in try disk.synchronize(descriptor, path: path) } }
    func synchronizeData(_ descriptor: Int32, path: String) throws(FileSystemError) { try call { () throws(FileSystemError) in try disk.synchronizeData(descriptor, path: path) } }
    func preallocate(_ descriptor: Int32, length: Int, path: String) throws(FileSystemError) {
        try call { () throws(FileSystemError) in try disk.preallocate(descriptor, length: length, path: path) }
    }
    func synchronizeFile(atPath path: String) throws(FileSystemError) { try call { () throws(FileSystemError) in try disk.synchronizeFile(atPath: path) } }
    func close(_ descriptor: Int32, path: String) throws(FileSystemError) { try call { () throws(FileSystemError) in try disk.close(descriptor, path: path) } }
    func rename(_ source: String, to destination: String) throws(FileSystemError) { try call { () throws(FileSystemError) in try disk.rename(source, to: destination) } }
    func removeFile(atPath path: String) throws(FileSystemError) -> Bool { try call { () throws(FileSystemError) in try disk.removeFile(atPath: path) } }
    func synchronizeDirectory(atPath path: String) throws(FileSystemError) { try call { () throws(FileSystemError) in try disk.synchronizeDirectory(atPath: path) } }
    func readRegularFile(atPath path: String, maximumSize: Int) throws(FileSystemError) -> FileContents {
        try call { () throws(FileSystemError) in try disk.readRegularFile(atPath: path, maximumSize: maximumSize) }
    }
    func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] { try call { () throws(FileSystemError) in try disk.contentsOfDirectory(atPath: path) } }
}

/// Delivers every transaction at once, as a verifier that checks on the
/// device does, and records who was credited for which transaction.
private final class InstantVerifier: ReceiptVerifier {
    private let credited = Locked<[String: [String]]>([:])

    /// The users credited, by transaction id.
    var credits: [String: [String]] { credited.withLock { $0 } }

    func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
        credited.withLock { $0[request.transaction.id, default: []].append(request.order.userID) }
        return .delivered
    }
}
