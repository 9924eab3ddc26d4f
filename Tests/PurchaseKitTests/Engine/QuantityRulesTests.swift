import XCTest
@testable import PurchaseKit

/// The pure decisions about quantities and product facts, without a store.
final class QuantityRulesTests: XCTestCase {
    private let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    private let machine = OrderStateMachine()

    private func order(_ status: OrderStatus, type: ProductType?, quantity: Int? = nil) -> Order {
        var order = Order(id: "o", productID: "p", userID: "u", token: "tok", productType: type, createdAt: t0)
        order.status = status
        if let quantity { order.transaction = paid(quantity) }
        return order
    }

    private func paid(_ quantity: Int) -> StoreTransaction {
        StoreTransaction(id: "t1", productID: "p", purchaseDate: t0, quantity: quantity, orderToken: "tok")
    }

    func testTheAppStoresQuantityBoundsPerType() {
        XCTAssertEqual(ProductType.consumable.allowedQuantities, 1...10)
        XCTAssertEqual(ProductType.nonRenewable.allowedQuantities, 1...10)
        XCTAssertEqual(ProductType.nonConsumable.allowedQuantities, 1...1)
        XCTAssertEqual(ProductType.autoRenewable.allowedQuantities, 1...1)
        let coins = StoreProduct(id: "coins", type: .consumable, displayName: "Coins", price: 1)
        XCTAssertNoThrow(try coins.validatePurchaseQuantity(10))
        XCTAssertThrowsError(try coins.validatePurchaseQuantity(11)) { error in
            XCTAssertEqual((error as? PurchaseKitError)?.keyPath, "quantity")
        }
    }

    func testAnImpossibleQuantityGoesStraightToNeedsAttentionWithoutVerification() {
        for (type, quantity) in [(ProductType.consumable, 0), (.consumable, -5), (.consumable, 11), (.consumable, Int.max),
                                 (.nonConsumable, 2), (.autoRenewable, 3), (nil, 11), (nil, Int.min)] {
            for status in [OrderStatus.created, .purchasing, .deferred, .failed, .cancelled] {
                let step = machine.step(order(status, type: type), on: .store(.purchased, paid(quantity)), now: t0, retryDelay: 1)
                XCTAssertEqual(step.order.status, .needsAttention, "\(String(describing: type)) ×\(quantity) from \(status)")
                XCTAssertEqual(step.actions, [.persist], "saved, never verified")
                XCTAssertEqual(step.order.lastErrorCode, .invalidQuantity)
                XCTAssertEqual(step.order.transaction?.id, "t1", "the paid transaction is kept")
                XCTAssertTrue(step.order.hint?.contains("\(quantity)") ?? false)
                XCTAssertTrue(OrderTransitionTable.allows(from: status, to: .needsAttention))
            }
        }
    }

    func testAPossibleQuantityIsDeliveredAsBefore() {
        for (type, quantity) in [(ProductType.consumable, 10), (.nonRenewable, 3), (.nonConsumable, 1), (nil, 7)] {
            let step = machine.step(order(.purchasing, type: type), on: .store(.purchased, paid(quantity)), now: t0, retryDelay: 1)
            XCTAssertEqual(step.order.status, .purchased)
            XCTAssertEqual(step.actions, [.persist, .verify])
        }
    }

    func testAHeldOrderIsNeverVerifiedByAnyTrigger() {
        // An order saved as purchased by an older build, or made from an unsolicited transaction.
        var step = machine.step(order(.purchased, type: .consumable, quantity: 0), on: .deliveryDue, now: t0, retryDelay: 1)
        XCTAssertEqual(step.order.status, .needsAttention)
        XCTAssertEqual(step.actions, [.persist])
        let held = step.order
        step = machine.step(held, on: .deliveryDue, now: t0, retryDelay: 1)
        XCTAssertTrue(step.isNoChange, "already held for the same reason")
        step = machine.step(held, on: .verified(.delivered), now: t0, retryDelay: 1)
        XCTAssertTrue(step.isNoChange, "a late verifier answer cannot deliver it")
        step = machine.step(held, on: .finishDue, now: t0, retryDelay: 1)
        XCTAssertTrue(step.isNoChange, "nor finish it")

        // An unassigned order (no user) with an impossible quantity is held too, with the quantity as its reason.
        var unassigned = order(.needsAttention, type: nil, quantity: Int.max)
        unassigned.userID = ""
        unassigned.hint = "No order or user matches this transaction."
        step = machine.step(unassigned, on: .deliveryDue, now: t0, retryDelay: 1)
        XCTAssertEqual(step.actions, [.persist])
        XCTAssertEqual(step.order.lastErrorCode, .invalidQuantity)
    }

    func testAStoredAttemptCounterAtItsLimitNeverTraps() {
        var saturated = order(.purchased, type: .consumable, quantity: 1)
        saturated.verificationAttempts = Int.max
        let step = machine.step(saturated, on: .verified(.retryLater(reason: "503")), now: t0, retryDelay: 1)
        XCTAssertEqual(step.order.verificationAttempts, Int.max)
        XCTAssertEqual(step.order.status, .needsAttention)
    }

    func testTheBalanceSkipsImpossibleQuantitiesAndSaturates() {
        func delivered(_ id: String, _ quantity: Int, product: String = "coins") -> Order {
            var order = Order(id: id, productID: product, userID: "u", quantity: quantity, createdAt: t0)
            order.transaction = StoreTransaction(id: "t-\(id)", productID: product, purchaseDate: t0, quantity: quantity)
            return order
        }
        var tally = ConsumableTally()
        for order in [delivered("a", Int.max), delivered("b", Int.max), delivered("c", 0), delivered("d", -1),
                      delivered("e", 10), delivered("f", 2), delivered("g", 3, product: "gems")] {
            tally.add(order)
        }
        XCTAssertEqual(tally.balance, ["coins": 12, "gems": 3])
        XCTAssertEqual(tally.skipped.map(\.orderID), ["a", "b", "c", "d"])
        XCTAssertTrue(tally.saturated.isEmpty)
    }

    func testProductFactsPreferTheOrderThenTheCatalogThenTheTransaction() throws {
        let monthly = StoreProduct(id: "plus", type: .autoRenewable, displayName: "Plus", price: 1,
                              subscription: SubscriptionInfo(groupID: "group-a", period: try SubscriptionPeriod(iso8601: "P1M")))
        func stored(_ id: String, product: String, type: ProductType? = nil, group: String? = nil, quantity: Int = 1,
                    expires: Bool = false, original: String? = nil) -> Order {
            var order = Order(id: id, productID: product, userID: "u", quantity: quantity, productType: type,
                              subscriptionGroupID: group, createdAt: t0)
            order.transaction = StoreTransaction(id: "t-\(id)", originalID: original, productID: product, purchaseDate: t0,
                                                 expirationDate: expires ? t0.addingTimeInterval(86_400) : nil, quantity: quantity)
            return order
        }
        let orders = [
            stored("recorded", product: "plus", type: .nonConsumable),      // the order wins over the catalog
            stored("catalog", product: "plus"),
            stored("gone-sub", product: "old.sub", group: "group-b", expires: true),
            stored("gone-renewal", product: "old.sub", expires: true, original: "t-gone-sub"),
            stored("gone-coins", product: "old.coins", quantity: 4),
            stored("gone-single", product: "old.thing"),
        ]
        let facts = ProductFacts.resolve(orders, catalog: ["plus": monthly])
        XCTAssertEqual(facts["recorded"], ProductFacts(type: .nonConsumable, groupID: nil, source: .order))
        XCTAssertEqual(facts["catalog"], ProductFacts(type: .autoRenewable, groupID: "group-a", source: .catalog))
        XCTAssertEqual(facts["gone-sub"], ProductFacts(type: .autoRenewable, groupID: "group-b", source: .inferred))
        XCTAssertEqual(facts["gone-renewal"], ProductFacts(type: .autoRenewable, groupID: "group-b", source: .inferred))
        XCTAssertEqual(facts["gone-coins"], ProductFacts(type: .consumable, groupID: nil, source: .inferred))
        XCTAssertEqual(facts["gone-single"], ProductFacts(type: .nonConsumable, groupID: nil, source: .inferred),
                       "a single unit nobody can describe stays owned rather than disappearing")
    }
}
