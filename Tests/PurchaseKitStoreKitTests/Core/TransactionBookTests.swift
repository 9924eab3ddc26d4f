import Foundation
import PurchaseKit
@testable import PurchaseKitStoreKit
import XCTest

/// What the adapter keeps for the engine to finish, and what it hands over once.
final class TransactionBookTests: XCTestCase {
    private let date = Date(timeIntervalSinceReferenceDate: 800_000_000)

    private func event(_ id: UInt64, product: String = "p", token: UUID? = nil, revoked: Date? = nil, group: String? = nil,
                       verified: Bool = true, finishes: Locked<[UInt64]>? = nil) -> TransactionEvent {
        TransactionEvent(
            snapshot: TransactionSnapshot(id: id, originalID: id, productID: product, productKind: .nonConsumable,
                                          subscriptionGroupID: group, purchaseDate: date, expirationDate: nil,
                                          revocationDate: revoked, revocationReason: revoked == nil ? nil : .other, quantity: 1,
                                          appAccountToken: token, isUpgraded: false, environment: .sandbox,
                                          verification: verified ? .verified(jws: "a.b.\(id)") : .unverified(reason: "invalidSignature")),
            finish: { finishes?.withLock { $0.append(id) } })
    }

    func testAHeldTransactionIsReleasedOnceWithItsOwnFinish() async {
        var book = TransactionBook()
        let finishes = Locked<[UInt64]>([])
        book.hold(event(1, finishes: finishes))
        book.hold(event(2, finishes: finishes))
        XCTAssertEqual(book.heldIDs, [1, 2])

        await book.release(2)?()
        XCTAssertNil(book.release(2), "released once")
        XCTAssertEqual(finishes.withLock { $0 }, [2])
        XCTAssertEqual(book.heldIDs, [1])
    }

    func testAnUpdateIdenticalToOneHandedOverIsDroppedAndAChangedOneIsNot() {
        var book = TransactionBook()
        book.hold(event(1))
        XCTAssertNil(book.receive(event(1)), "StoreKit's replay of an unfinished transaction")
        XCTAssertEqual(book.receive(event(1, revoked: date)), false, "now revoked: news")
        XCTAssertNil(book.receive(event(1, revoked: date)))
        XCTAssertEqual(book.receive(event(2)), false, "never seen")
        _ = book.release(2)
        XCTAssertEqual(book.receive(event(2)), false, "finished since: handed over again, and the engine finishes it again")
    }

    func testATokenlessPurchaseOfAPendingPromotedProductIsStoreInitiatedOnce() {
        var book = TransactionBook()
        book.promotedPurchaseWentPending("p")
        XCTAssertEqual(book.receive(event(1, product: "q")), false, "another product")
        XCTAssertEqual(book.receive(event(2, token: UUID())), false, "the app's own payment")
        XCTAssertEqual(book.receive(event(3)), true)
        XCTAssertEqual(book.receive(event(4)), false, "one pending purchase, one transaction")
    }

    func testATransactionStoreKitCanVerifyOnlyLaterIsNotHandedOverOrHeld() {
        var book = TransactionBook()
        var later = event(1)
        later.snapshot.verification = .unverified(reason: "revokedCertificate")
        XCTAssertTrue(later.snapshot.verifiesLater)
        XCTAssertFalse(event(2, verified: false).snapshot.verifiesLater, "an invalid signature stays invalid")
        XCTAssertNil(book.receive(later), "left unfinished in StoreKit, which verifies it again at the next launch")
        XCTAssertTrue(book.heldIDs.isEmpty)
        XCTAssertEqual(book.receive(event(1)), false, "verified now: handed over")
    }

    func testTheGroupOfASubscriptionIsLearnedFromVerifiedTransactionsOnly() {
        var book = TransactionBook()
        book.hold(event(1, group: "forged", verified: false))
        XCTAssertNil(book.groupID(ofOriginal: 1))
        _ = book.receive(event(2, group: "plus"))
        XCTAssertEqual(book.groupID(ofOriginal: 2), "plus")
    }
}
