import Foundation
import XCTest
@testable import PurchaseKit
import PurchaseKitSimulator

final class JournalOrderStoreTests: XCTestCase {
    func testEveryFieldOfEveryPlaceSurvivesAReopen() async throws {
        let directory = try makeTemporaryDirectory(self)
        let store = try makeJournalStore(directory)
        let open = makeFullOrder("o-open")
        var archived = makeFullOrder("o-archived", user: "user-2", status: .completed)
        archived.token = nil
        archived.transaction?.orderToken = nil
        let plain = makeOrder("o-plain", status: .created)
        try await store.save(open)
        try await store.save(archived)
        try await store.save(plain)
        try await store.archive(orderID: "o-archived")

        let (reopened, report) = try await reopen(store, directory)
        XCTAssertEqual(report.orders, [open, plain].sorted { $0.createdAt < $1.createdAt })
        XCTAssertTrue(report.problems.isEmpty, "\(report.problems)")
        let found = try await reopened.order(id: "o-archived")
        XCTAssertEqual(found, archived)
        let byTransaction = try await reopened.order(transactionID: "t-o-archived")
        XCTAssertEqual(byTransaction, archived)
        let byToken = try await reopened.order(token: "token-o-open")
        XCTAssertEqual(byToken, open)
        let history = try await reopened.orders(forUser: "user-2")
        XCTAssertEqual(history, [archived])
    }
}
