import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator

/// A journal store over `directory` with a manual clock standing at ``testEpoch``.
func makeJournalStore(_ directory: URL, fileSystem: any FileSystem = POSIXFileSystem(),
                      logHandler: any PurchaseLogHandler = SilentLogHandler(),
                      clock: any PurchaseClock = ManualClock(start: testEpoch),
                      snapshotThreshold: Int = 1024 * 1024, maximumRecordSize: Int = 1024 * 1024,
                      archiveRetention: TimeInterval = 30 * 86_400, reservation: Int = 256 * 1024,
                      onCallingThread: Bool = false) throws -> JournalOrderStore {
    var configuration = JournalOrderStore.Configuration(
        archiveRetention: archiveRetention, clock: clock, logHandler: logHandler,
        maximumRecordSize: maximumRecordSize, snapshotThreshold: snapshotThreshold)
    configuration.fileSystem = fileSystem
    configuration.journalReservation = reservation
    configuration.writesOnCallingThread = onCallingThread
    return try JournalOrderStore(directory: directory, configuration: configuration)
}

/// An order with every optional field set, so that a round trip that drops one fails.
func makeFullOrder(_ id: String, user: String = "user-1", status: OrderStatus = .delivered) -> Order {
    var order = Order(id: id, productID: "com.example.pass", userID: user, token: "token-\(id)", quantity: 3,
                      productType: .autoRenewable, subscriptionGroupID: "group-1", source: .renewal, status: status,
                      createdAt: testEpoch.addingTimeInterval(0.125), metadata: ["campaign": "spring", "screen": "störe\t✓"])
    order.paymentBeganAt = testEpoch.addingTimeInterval(1.5)
    order.paymentFinishedAt = testEpoch.addingTimeInterval(2.25)
    order.updatedAt = testEpoch.addingTimeInterval(3.000_000_1)
    order.verificationAttempts = 7
    order.nextAttemptAt = testEpoch.addingTimeInterval(60)
    order.hint = "retrying"
    order.lastErrorCode = .verificationUnavailable
    order.storeFailureReason = .paymentInvalid
    order.finishedAt = testEpoch.addingTimeInterval(4)
    order.transaction = StoreTransaction(
        id: "t-\(id)", originalID: "t-original-\(id)", productID: "com.example.pass.other",
        purchaseDate: testEpoch.addingTimeInterval(2), expirationDate: testEpoch.addingTimeInterval(86_400),
        revocationDate: testEpoch.addingTimeInterval(90_000), revocationReason: .developerIssue, quantity: 2,
        orderToken: "token-\(id)", receipt: Data((0..<300).map { UInt8($0 % 251) }), environment: .production,
        reason: .purchase)
    return order
}

/// The names in the journal folder, sorted.
func journalFiles(_ directory: URL) -> [String] {
    names(in: directory, "journal").filter { !$0.hasPrefix(".") }
}

/// Reopens a store on `directory` (after closing `store`) and loads it.
func reopen(_ store: JournalOrderStore, _ directory: URL, fileSystem: any FileSystem = POSIXFileSystem(),
            snapshotThreshold: Int = 1024 * 1024) async throws -> (JournalOrderStore, OrderLoadReport) {
    await store.close()
    let next = try makeJournalStore(directory, fileSystem: fileSystem, snapshotThreshold: snapshotThreshold)
    return (next, try await next.loadOpenOrders())
}

/// Saves `order` to a new journal in `directory` with no reserved room, closes
/// it, and appends `bytes` as they are to the journal's one file, so that they
/// follow its last record. Returns that file.
@discardableResult
func appendToJournal(of order: Order, in directory: URL, _ bytes: [UInt8]) async throws -> URL {
    let store = try makeJournalStore(directory, reservation: 0)
    try await store.save(order)
    await store.close()
    let file = directory.appendingPathComponent("journal/\(try XCTUnwrap(journalFiles(directory).first))")
    try append(Data(bytes), to: file)
    return file
}

/// Writes `bytes` at the end of `file`, as damage or padding would.
func append(_ bytes: Data, to file: URL) throws {
    let handle = try FileHandle(forWritingTo: file)
    try handle.seekToEnd()
    try handle.write(contentsOf: bytes)
    try handle.close()
}

/// `payload` framed as one journal record, with a checksum that holds.
func framedRecord(_ payload: [UInt8]) -> [UInt8] {
    var writer = ByteWriter()
    let start = JournalFrame.start(&writer)
    writer.bytes += payload
    JournalFrame.finish(&writer, from: start)
    return writer.bytes
}

/// Saves completed filler orders, one at a time and each written, until the
/// store begins a snapshot (a store opened with a small snapshot threshold);
/// fails the test if none began within a thousand saves.
func saveUntilASnapshotBegins(_ store: JournalOrderStore, file: StaticString = #filePath, line: UInt = #line) async throws {
    let generation = store.state.withLock { $0.generation }
    for number in 0..<1_000 where store.state.withLock({ $0.generation }) == generation {
        try await store.save(makeFullOrder("filler-\(number)", status: .completed))
        await store.waitUntilWritten()
    }
    XCTAssertNotEqual(store.state.withLock { $0.generation }, generation, "a snapshot began", file: file, line: line)
}
