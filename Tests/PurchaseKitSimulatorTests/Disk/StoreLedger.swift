import Foundation
import PurchaseKit
import PurchaseKitSimulator

/// An order as the store holds it: which version, open or archived.
struct StoredOrder: Hashable, CustomStringConvertible {
    enum Place: String { case open, archived }

    var order: Order
    var place: Place

    var description: String { "version \(order.metadata["version"] ?? "?"), \(place.rawValue)" }
}

/// One call made to the store by a simulated process.
enum StoreStep: CustomStringConvertible {
    /// Opens a new store on the disk and loads it, as a launch does.
    case open
    case save(Order)
    case archive(String)

    var description: String {
        switch self {
        case .open: "open"
        case .save(let order): "save \(order.id) v\(order.metadata["version"] ?? "?")"
        case .archive(let id): "archive \(id)"
        }
    }
}

/// What the store acknowledged (the call returned) and the one call in flight
/// when the process died: a crash may leave each order only as acknowledged
/// or as the call in flight would have left it.
struct StoreLedger: CrashLedger {
    private(set) var acknowledged: [String: StoredOrder] = [:]
    private var inFlight: (id: String, state: StoredOrder)?

    /// Records that `step` was called and has not returned yet.
    mutating func begin(_ step: StoreStep) {
        switch step {
        case .open:
            inFlight = nil
        case .save(let order):
            inFlight = (order.id, StoredOrder(order: order, place: .open))
        case .archive(let id):
            inFlight = acknowledged[id].map { (id, StoredOrder(order: $0.order, place: .archived)) }
        }
    }

    /// Records that the call in flight returned.
    mutating func acknowledge() {
        if let inFlight { acknowledged[inFlight.id] = inFlight.state }
        inFlight = nil
    }

    /// Every order id a crash may leave something of.
    var ids: Set<String> { Set(acknowledged.keys).union(inFlight.map { [$0.id] } ?? []) }

    /// What a crash may leave of order `id` (nil: nothing).
    func allowed(_ id: String) -> [StoredOrder?] {
        var states: [StoredOrder?] = [acknowledged[id]]
        if let inFlight, inFlight.id == id { states.append(inFlight.state) }
        return states
    }
}

/// Test orders: each save of an order is a new version, told apart by its metadata and update time.
enum TestOrders {
    static let epoch = Date(timeIntervalSince1970: 1_767_225_600)

    static func version(_ version: Int, of id: String, user: String = "user-1", status: OrderStatus = .purchased) -> Order {
        var order = Order(id: id, productID: "com.example.coins.100", userID: user, status: status,
                          createdAt: epoch, metadata: ["version": String(version), "note": String(repeating: "x", count: 40)])
        order.updatedAt = epoch.addingTimeInterval(TimeInterval(version))
        return order
    }
}
