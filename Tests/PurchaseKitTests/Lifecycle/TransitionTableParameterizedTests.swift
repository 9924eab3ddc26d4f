import Foundation
import Testing
@testable import PurchaseKit

/// Every pair of statuses, one Swift Testing case each, so a failure names the pair.
@Suite("Order transition table")
struct TransitionTableParameterizedTests {
    @Test("validate throws exactly when allows is false", arguments: OrderStatus.allCases, OrderStatus.allCases)
    func validateAgreesWithAllows(from: OrderStatus, to: OrderStatus) {
        let allowed = OrderTransitionTable.allows(from: from, to: to)
        do {
            try OrderTransitionTable.validate(from: from, to: to, orderID: "order-7")
            #expect(allowed, "validate accepted \(from.rawValue) → \(to.rawValue), which allows refuses")
        } catch {
            #expect(!allowed, "validate refused \(from.rawValue) → \(to.rawValue), which allows accepts")
            #expect(error.code == .invalidTransition)
            #expect(error.fromStatus == from)
            #expect(error.toStatus == to)
            #expect(error.orderID == "order-7")
            #expect(error.message.contains("from \(from.rawValue) to \(to.rawValue)"))
            #expect(error.description.contains("from \(from.rawValue) to \(to.rawValue)"))
        }
        #expect(allowed == OrderTransitionTable.successors(of: from).contains(to))
    }

    @Test("an order moves exactly when the table allows it", arguments: OrderStatus.allCases, OrderStatus.allCases)
    func orderMoveFollowsTheTable(from: OrderStatus, to: OrderStatus) {
        let created = Date(timeIntervalSinceReferenceDate: 100)
        let later = Date(timeIntervalSinceReferenceDate: 200)
        var order = Order(id: "order-8", productID: "p", userID: "u", status: from, createdAt: created)
        let moved = (try? order.move(to: to, at: later)) != nil
        #expect(moved == OrderTransitionTable.allows(from: from, to: to))
        #expect(order.status == (moved ? to : from))
        #expect(order.updatedAt == (moved ? later : created))
    }

    @Test("credit before finish: completed only after delivered, delivered only from a paid order",
          arguments: OrderStatus.allCases, OrderStatus.allCases)
    func paidOrdersAreDeliveredBeforeTheyComplete(from: OrderStatus, to: OrderStatus) {
        let allowed = OrderTransitionTable.allows(from: from, to: to)
        if to == .completed { #expect(allowed == (from == .delivered)) }
        if to == .delivered { #expect(allowed == from.owesDelivery) }
        // Nothing goes back to before the payment was handed to the store.
        if to == .created { #expect(!allowed) }
        // A final status has no way out.
        if from.isFinal { #expect(!allowed) }
    }
}
