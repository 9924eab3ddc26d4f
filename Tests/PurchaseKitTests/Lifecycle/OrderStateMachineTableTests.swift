import XCTest
@testable import PurchaseKit

/// The state machine, exhaustively: every status (unpaid and paid) × every
/// event, against a table written out below. Each cell is the status the
/// order moves to (`=` when it stays) and the actions, in order: `p` persist,
/// `v` verify, `f` finish, `r` schedule a retry, `a` archive; `·` when the
/// event changes nothing. A change to any decision shows up as a changed cell.
final class OrderStateMachineTableTests: XCTestCase {
    static let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
    static let paid = StoreTransaction(id: "t1", productID: "p", purchaseDate: t0, orderToken: "tok")
    static var revocation: StoreTransaction {
        var transaction = paid
        transaction.revocationDate = t0
        return transaction
    }

    /// The events, in the order of the table's columns.
    static let events: [(String, OrderEvent)] = [
        ("added", .paymentAdded),
        ("s.purchasing", .store(.purchasing, nil)),
        ("s.deferred", .store(.deferred, nil)),
        ("s.interrupted", .store(.interrupted, nil)),
        ("s.scheduled", .store(.scheduled, nil)),
        ("s.purchased", .store(.purchased, paid)),
        ("s.restored", .store(.restored, paid)),
        ("s.cancelled", .store(.cancelled, nil)),
        ("s.failed", .store(.failed(.unknown), nil)),
        ("s.revoked", .store(.revoked, revocation)),
        ("v.delivered", .verified(.delivered)),
        ("v.already", .verified(.alreadyDelivered)),
        ("v.invalid", .verified(.invalid(reason: "forged"))),
        ("v.later", .verified(.retryLater(reason: "503"))),
        ("finished", .finished),
        ("deliveryDue", .deliveryDue),
        ("finishDue", .finishDue),
        ("abandoned", .abandoned),
        ("expired", .paymentExpired),
    ]

    static func order(_ status: OrderStatus, paid: Bool) -> Order {
        var order = Order(id: "o", productID: "p", userID: "u", token: "tok", createdAt: t0)
        order.status = status
        if paid { order.transaction = Self.paid }
        return order
    }

    static func cell(_ step: OrderStateMachine.Step, from order: Order) -> String {
        if step.isNoChange { return "·" }
        let status = step.order.status == order.status ? "=" : step.order.status.rawValue
        let actions = step.actions.map { action -> String in
            switch action {
            case .persist: return "p"
            case .verify: return "v"
            case .finish: return "f"
            case .scheduleRetry: return "r"
            case .archive: return "a"
            }
        }.joined()
        return "\(status):\(actions)"
    }

    /// The rows the machine produces, one per status and payment, cells in column order.
    static func rows(machine: OrderStateMachine) -> [String] {
        OrderStatus.allCases.flatMap { status in
            [false, true].map { paid in
                let order = order(status, paid: paid)
                let cells = events.map { cell(machine.step(order, on: $0.1, now: t0.addingTimeInterval(60), retryDelay: 30), from: order) }
                return "\(status.rawValue)\(paid ? "+paid" : "") " + cells.joined(separator: " ")
            }
        }
    }

    /// The automatic finish policy's table. Rows: status, `+paid` when the
    /// order holds its store transaction. Columns: ``events``, in order.
    static let expected: [String: String] = [
        "created": "purchasing:p purchasing:p deferred:p deferred:p deferred:p purchased:pv purchased:pv cancelled:pa failed:pa · · · · · =:p · · failed:pa ·",
        "created+paid": "purchasing:p purchasing:p deferred:p deferred:p deferred:p · · cancelled:pa failed:pa · · · · · =:p · · failed:pa ·",
        "purchasing": "· · deferred:p deferred:p deferred:p purchased:pv purchased:pv cancelled:pa failed:pa · · · · · =:p · · · failed:p",
        "purchasing+paid": "· · deferred:p deferred:p deferred:p · · cancelled:pa failed:pa · · · · · =:p · · · failed:p",
        "deferred": "purchasing:p · · · · purchased:pv purchased:pv cancelled:pa failed:pa · · · · · =:p · · · failed:p",
        "deferred+paid": "purchasing:p · · · · · · cancelled:pa failed:pa · · · · · =:p · · · failed:p",
        "purchased": "· · · · · · · · · · · · · · =:p · · · ·",
        "purchased+paid": "· · · · · · · · · revoked:pf delivered:pf delivered:pf rejected:pf =:pr =:p =:v · · ·",
        "delivered": "· · · · · · · · · · · · · · completed:pa · · · ·",
        "delivered+paid": "· · · · · · · · · revoked:pf · · · · completed:pa · =:f · ·",
        "completed": "· · · · · · · · · · · · · · =:pa · · · ·",
        "completed+paid": "· · · · · · · · · revoked:pf · · · · =:pa · · · ·",
        "failed": "· · · · · purchased:pv purchased:pv · · · · · · · =:pa · · · ·",
        "failed+paid": "· · · · · · · · · · · · · · =:pa · · · ·",
        "cancelled": "· · · · · purchased:pv purchased:pv · · · · · · · =:pa · · · ·",
        "cancelled+paid": "· · · · · · · · · · · · · · =:pa · · · ·",
        "rejected": "· · · · · · · · · · · · · · =:pa · · · ·",
        "rejected+paid": "· · · · · · · · · · · · · · =:pa · =:f · ·",
        "needsAttention": "· · · · · purchased:pv purchased:pv · · · · · · · =:p · · · ·",
        "needsAttention+paid": "· · · · · · · · · revoked:pf delivered:pf delivered:pf rejected:pf =:pr =:p =:v · · ·",
        "revoked": "· · · · · · · · · · · · · · =:pa · · · ·",
        "revoked+paid": "· · · · · · · · · · · · · · =:pa · =:f · ·",
    ]

    func testEveryStatusAndEventStepsAsTheTableSays() {
        let machine = OrderStateMachine(retryPolicy: RetryPolicy(attemptBudget: 3, needsAttentionInterval: 3600))
        let rows = Self.rows(machine: machine)
        XCTAssertEqual(rows.count, OrderStatus.allCases.count * 2)
        for row in rows {
            let name = String(row.prefix { $0 != " " })
            let cells = String(row.dropFirst(name.count + 1))
            guard let expected = Self.expected[name] else { XCTFail("no expected row for \(name)"); continue }
            let got = cells.split(separator: " "), want = expected.split(separator: " ")
            XCTAssertEqual(got.count, Self.events.count)
            for (index, (g, w)) in zip(got, want).enumerated() where g != w {
                XCTFail("\(name) on \(Self.events[index].0): the machine says \(g), the table \(w)")
            }
        }
    }

    /// Whatever the event: a status change is one the transition table allows,
    /// and a step that changes the order persists it before anything else.
    func testEveryStepIsALegalMoveAndPersistsFirst() {
        for finishes in [true, false] {
            let machine = OrderStateMachine(retryPolicy: RetryPolicy(attemptBudget: 1), finishesAfterDelivery: finishes)
            for status in OrderStatus.allCases {
                for paid in [false, true] {
                    let order = Self.order(status, paid: paid)
                    for (name, event) in Self.events {
                        let step = machine.step(order, on: event, now: Self.t0.addingTimeInterval(60), retryDelay: 30)
                        if step.order.status != status {
                            XCTAssertTrue(OrderTransitionTable.allows(from: status, to: step.order.status),
                                          "\(status) on \(name) moved to \(step.order.status)")
                        }
                        if step.order != order {
                            XCTAssertEqual(step.actions.first, .persist, "\(status) on \(name) changed the order without persisting it first")
                        }
                        if step.isNoChange { XCTAssertEqual(step.order, order, "\(status) on \(name)") }
                    }
                }
            }
        }
    }

    /// With manual finishing, the only cells that change are the finishes of
    /// a delivery: the engine records it and leaves the finish to the app, and
    /// the app's finish (`finishDue`) still finishes.
    func testManualFinishingOnlyDropsTheFinishAfterDelivery() {
        let retry = RetryPolicy(attemptBudget: 3, needsAttentionInterval: 3600)
        let automatic = Self.rows(machine: OrderStateMachine(retryPolicy: retry))
        let manual = Self.rows(machine: OrderStateMachine(retryPolicy: retry, finishesAfterDelivery: false))
        var differences: [String] = []
        for (a, m) in zip(automatic, manual) where a != m {
            let name = String(a.prefix { $0 != " " })
            for (index, (x, y)) in zip(a.split(separator: " ").dropFirst(), m.split(separator: " ").dropFirst()).enumerated() where x != y {
                differences.append("\(name) \(Self.events[index].0): \(x) -> \(y)")
            }
        }
        XCTAssertEqual(differences.sorted(), [
            "needsAttention+paid v.already: delivered:pf -> delivered:p",
            "needsAttention+paid v.delivered: delivered:pf -> delivered:p",
            "purchased+paid v.already: delivered:pf -> delivered:p",
            "purchased+paid v.delivered: delivered:pf -> delivered:p",
        ])
    }
}
