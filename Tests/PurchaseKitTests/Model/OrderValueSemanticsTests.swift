import Foundation
import XCTest
@testable import PurchaseKit

/// An order shares its values with its copies until one changes: a change to
/// a copy must never show in another, whichever field, whichever task.
final class OrderValueSemanticsTests: XCTestCase {
    private func fullOrder() -> Order {
        var order = Order(id: "o-1", productID: "com.example.pass", userID: "alice", token: "token-1", quantity: 2,
                          productType: .autoRenewable, subscriptionGroupID: "group", source: .purchase, status: .purchased,
                          createdAt: testEpoch, metadata: ["campaign": "spring"])
        order.transaction = StoreTransaction(id: "t-1", productID: "com.example.pass", purchaseDate: testEpoch,
                                             orderToken: "token-1", receipt: Data("receipt".utf8))
        order.hint = "waiting"
        return order
    }

    func testAChangeToACopyLeavesTheOriginalAsItWas() {
        let original = fullOrder()
        let snapshot = try? OrderCoding.encode(original)
        var changes: [(String, (inout Order) -> Void)] = [
            ("status", { $0.status = .delivered }),
            ("userID", { $0.userID = "bob" }),
            ("token", { $0.token = nil }),
            ("verificationAttempts", { $0.verificationAttempts += 1 }),
            ("updatedAt", { $0.updatedAt = testEpoch.addingTimeInterval(60) }),
            ("hint", { $0.hint = nil }),
            ("metadata", { $0.metadata["campaign"] = "autumn" }),
            ("transaction", { $0.transaction?.receipt = Data() }),
            ("finishedAt", { $0.finishedAt = testEpoch }),
        ]
        changes.append(("several", { order in
            order.status = .completed
            order.quantity = 9
        }))
        for (name, change) in changes {
            var copy = original
            change(&copy)
            XCTAssertNotEqual(copy, original, name)
            XCTAssertEqual(try? OrderCoding.encode(original), snapshot, "\(name): the original changed with its copy")
            XCTAssertEqual(original.status, .purchased, name)
            XCTAssertEqual(original.metadata, ["campaign": "spring"], name)
            XCTAssertEqual(original.transaction?.receipt, Data("receipt".utf8), name)
        }
    }

    func testOrdersWithTheSameValuesAreEqualAndHashAlikeWhetherOrNotTheyShareTheirValues() {
        let first = fullOrder()
        let second = fullOrder()
        let copy = first
        XCTAssertEqual(first, second)
        XCTAssertEqual(first.hashValue, second.hashValue)
        XCTAssertEqual(first, copy)
        var changed = copy
        changed.verificationAttempts = 1
        changed.verificationAttempts = 0
        XCTAssertEqual(changed, first, "changed and changed back")
        XCTAssertEqual(changed.hashValue, first.hashValue)
        XCTAssertEqual(Set([first, second, copy, changed]).count, 1)
    }

    func testCopiesChangedInManyTasksAtOnceEachKeepTheirOwnValues() async {
        let shared = fullOrder()
        let results = await CoreFixtures.copiesChangedInManyTasks(of: shared) { mine, index in
            for _ in 0..<100 { mine.verificationAttempts += 1 }
            mine.hint = "task \(index)"
        }
        XCTAssertEqual(shared.verificationAttempts, 0)
        XCTAssertEqual(shared.hint, "waiting")
        for (index, order) in results {
            XCTAssertEqual(order.verificationAttempts, 100)
            XCTAssertEqual(order.hint, "task \(index)")
            XCTAssertEqual(order.transaction, shared.transaction)
        }
    }
}
