import Foundation
import XCTest
@testable import PurchaseKit

/// A transaction shares its values with its copies until one changes, as an
/// order does: a change to a copy must never show in another, and its JSON is
/// the one written before its values were shared.
final class StoreTransactionValueSemanticsTests: XCTestCase {
    private func fullTransaction() -> StoreTransaction {
        StoreTransaction(id: "t-1", originalID: "t-0", productID: "com.example.pass",
                         purchaseDate: Date(timeIntervalSinceReferenceDate: 760_000_000.125),
                         expirationDate: Date(timeIntervalSinceReferenceDate: 762_592_000.5),
                         revocationDate: Date(timeIntervalSinceReferenceDate: 761_000_000), revocationReason: .developerIssue,
                         quantity: 3, orderToken: "token-1", receipt: Data("receipt".utf8), environment: .production, reason: .renewal)
    }

    /// Written by the build before the values moved into a shared box.
    private let fullJSON = #"{"environment":"production","expirationDate":762592000.5,"id":"t-1","orderToken":"token-1","originalID":"t-0","productID":"com.example.pass","purchaseDate":760000000.125,"quantity":3,"reason":"renewal","receipt":"cmVjZWlwdA==","revocationDate":761000000,"revocationReason":"developerIssue"}"#
    private let minimalJSON = #"{"environment":"sandbox","id":"t-9","originalID":"t-9","productID":"p","purchaseDate":1,"quantity":1,"receipt":""}"#

    private func json(_ transaction: StoreTransaction) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(transaction), as: UTF8.self)
    }

    func testItsJSONIsTheOneWrittenBeforeAndReadsBackEqual() throws {
        let minimal = StoreTransaction(id: "t-9", productID: "p", purchaseDate: Date(timeIntervalSinceReferenceDate: 1))
        XCTAssertEqual(try json(fullTransaction()), fullJSON)
        XCTAssertEqual(try json(minimal), minimalJSON)
        XCTAssertEqual(try JSONDecoder().decode(StoreTransaction.self, from: Data(fullJSON.utf8)), fullTransaction())
        XCTAssertEqual(try JSONDecoder().decode(StoreTransaction.self, from: Data(minimalJSON.utf8)), minimal)
    }

    func testEachPropertyReadsAndWritesItsOwnValue() throws {
        let full = fullTransaction()
        XCTAssertEqual(full.id, "t-1")
        XCTAssertEqual(full.originalID, "t-0")
        XCTAssertEqual(full.productID, "com.example.pass")
        XCTAssertEqual(full.purchaseDate, Date(timeIntervalSinceReferenceDate: 760_000_000.125))
        XCTAssertEqual(full.expirationDate, Date(timeIntervalSinceReferenceDate: 762_592_000.5))
        XCTAssertEqual(full.revocationDate, Date(timeIntervalSinceReferenceDate: 761_000_000))
        XCTAssertEqual(full.revocationReason, .developerIssue)
        XCTAssertEqual(full.quantity, 3)
        XCTAssertEqual(full.orderToken, "token-1")
        XCTAssertEqual(full.receipt, Data("receipt".utf8))
        XCTAssertEqual(full.environment, .production)
        XCTAssertEqual(full.reason, .renewal)
        XCTAssertTrue(full.isRevoked)

        // Every value set through its own property: the same transaction.
        var built = StoreTransaction(id: "x", productID: "y", purchaseDate: Date(timeIntervalSinceReferenceDate: 0))
        built.id = "t-1"
        built.originalID = "t-0"
        built.productID = "com.example.pass"
        built.purchaseDate = Date(timeIntervalSinceReferenceDate: 760_000_000.125)
        built.expirationDate = Date(timeIntervalSinceReferenceDate: 762_592_000.5)
        built.revocationDate = Date(timeIntervalSinceReferenceDate: 761_000_000)
        built.revocationReason = .developerIssue
        built.quantity = 3
        built.orderToken = "token-1"
        built.receipt = Data("receipt".utf8)
        built.environment = .production
        built.reason = .renewal
        XCTAssertEqual(built, full)
        XCTAssertEqual(try json(built), fullJSON)
    }

    func testAChangeToACopyLeavesTheOriginalAsItWas() throws {
        let original = fullTransaction()
        let changes: [(String, (inout StoreTransaction) -> Void)] = [
            ("id", { $0.id = "t-2" }),
            ("originalID", { $0.originalID = "t-2" }),
            ("productID", { $0.productID = "other" }),
            ("purchaseDate", { $0.purchaseDate = Date(timeIntervalSinceReferenceDate: 1) }),
            ("expirationDate", { $0.expirationDate = nil }),
            ("revocationDate", { $0.revocationDate = nil }),
            ("revocationReason", { $0.revocationReason = .other }),
            ("quantity", { $0.quantity = 1 }),
            ("orderToken", { $0.orderToken = nil }),
            ("receipt", { $0.receipt = Data() }),
            ("environment", { $0.environment = .sandbox }),
            ("reason", { $0.reason = .purchase }),
        ]
        for (name, change) in changes {
            var copy = original
            change(&copy)
            XCTAssertNotEqual(copy, original, name)
            XCTAssertEqual(try json(original), fullJSON, "\(name): the original changed with its copy")
        }
    }

    func testTransactionsWithTheSameValuesAreEqualAndHashAlikeWhetherOrNotTheyShareTheirValues() {
        let first = fullTransaction()
        let second = fullTransaction()
        var changed = first
        changed.quantity = 4
        XCTAssertNotEqual(changed, first)
        changed.quantity = 3
        XCTAssertEqual(changed, first, "changed and changed back")
        XCTAssertEqual(first, second)
        XCTAssertEqual(first.hashValue, second.hashValue)
        XCTAssertEqual(changed.hashValue, first.hashValue)
        XCTAssertEqual(Set([first, second, changed]).count, 1)
    }

    func testCopiesChangedInManyTasksAtOnceEachKeepTheirOwnValues() async {
        let shared = fullTransaction()
        let results = await CoreFixtures.copiesChangedInManyTasks(of: shared) { mine, index in
            for _ in 0..<100 { mine.quantity += 1 }
            mine.orderToken = "task \(index)"
        }
        XCTAssertEqual(shared.quantity, 3)
        XCTAssertEqual(shared.orderToken, "token-1")
        XCTAssertEqual(results.count, 64)
        for (index, transaction) in results {
            XCTAssertEqual(transaction.quantity, 103)
            XCTAssertEqual(transaction.orderToken, "task \(index)")
            XCTAssertEqual(transaction.receipt, shared.receipt)
        }
    }
}
