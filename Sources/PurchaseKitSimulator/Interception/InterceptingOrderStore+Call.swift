import PurchaseKit

extension InterceptingOrderStore {
    /// One call to the order store, with its arguments.
    public enum Call: Sendable, Hashable {
        /// ``OrderStore/save(_:)``.
        case save(Order)
        /// ``OrderStore/loadOpenOrders()``.
        case loadOpenOrders
        /// ``OrderStore/openOrders(forUser:)``.
        case openOrders(userID: String)
        /// ``OrderStore/orders(forUser:)``.
        case orders(userID: String)
        /// ``OrderStore/order(id:)``.
        case orderWithID(String)
        /// ``OrderStore/order(transactionID:)``.
        case orderWithTransactionID(String)
        /// ``OrderStore/orders(originalTransactionID:)``.
        case ordersOfPurchase(originalTransactionID: String)
        /// ``OrderStore/order(token:)``.
        case orderWithToken(String)
        /// ``OrderStore/archive(orderID:)``.
        case archive(orderID: String)
        /// ``OrderStore/remove(orderID:)``.
        case remove(orderID: String)
        /// ``OrderStore/recordSpend(_:)``.
        case recordSpend(ConsumableSpend)
        /// ``OrderStore/spends(forUser:)``.
        case spends(userID: String)
        /// ``OrderStore/saveRenewalState(_:)``.
        case saveRenewalState(RenewalStateRecord)
        /// ``OrderStore/renewalStates(forUser:)``.
        case renewalStates(userID: String)

        /// The requirement called, without its arguments.
        public enum Name: String, Sendable, Hashable, CaseIterable {
            /// ``OrderStore/save(_:)``.
            case save
            /// ``OrderStore/loadOpenOrders()``.
            case loadOpenOrders
            /// ``OrderStore/openOrders(forUser:)``.
            case openOrders
            /// ``OrderStore/orders(forUser:)``.
            case orders
            /// ``OrderStore/order(id:)``.
            case orderWithID
            /// ``OrderStore/order(transactionID:)``.
            case orderWithTransactionID
            /// ``OrderStore/orders(originalTransactionID:)``.
            case ordersOfPurchase
            /// ``OrderStore/order(token:)``.
            case orderWithToken
            /// ``OrderStore/archive(orderID:)``.
            case archive
            /// ``OrderStore/remove(orderID:)``.
            case remove
            /// ``OrderStore/recordSpend(_:)``.
            case recordSpend
            /// ``OrderStore/spends(forUser:)``.
            case spends
            /// ``OrderStore/saveRenewalState(_:)``.
            case saveRenewalState
            /// ``OrderStore/renewalStates(forUser:)``.
            case renewalStates
        }

        /// The requirement called.
        public var name: Name {
            switch self {
            case .save: return .save
            case .loadOpenOrders: return .loadOpenOrders
            case .openOrders: return .openOrders
            case .orders: return .orders
            case .orderWithID: return .orderWithID
            case .orderWithTransactionID: return .orderWithTransactionID
            case .ordersOfPurchase: return .ordersOfPurchase
            case .orderWithToken: return .orderWithToken
            case .archive: return .archive
            case .remove: return .remove
            case .recordSpend: return .recordSpend
            case .spends: return .spends
            case .saveRenewalState: return .saveRenewalState
            case .renewalStates: return .renewalStates
            }
        }

        /// Whether the call writes (a save, an archive, a removal, a spend, a
        /// renewal state) rather than reads.
        public var isWrite: Bool {
            switch self {
            case .save, .archive, .remove, .recordSpend, .saveRenewalState: return true
            default: return false
            }
        }
    }

    /// An answer a hook gives instead of the wrapped store, or the wrapped
    /// store's answer handed to a ``InterceptionDecision/proceedThen(_:)`` hook.
    /// Each call takes one kind.
    public enum Answer: Sendable {
        /// For a call that returns nothing: a save, an archive, a removal, a
        /// renewal state's save. Answering it skips the write.
        case done
        /// For ``Call/loadOpenOrders``.
        case report(OrderLoadReport)
        /// For ``Call/openOrders(userID:)``, ``Call/orders(userID:)`` and
        /// ``Call/ordersOfPurchase(originalTransactionID:)``.
        case orders([Order])
        /// For the lookups of one order (by id, transaction id or token).
        case order(Order?)
        /// For ``Call/recordSpend(_:)``: the spend as stored.
        case spend(ConsumableSpend)
        /// For ``Call/spends(userID:)``.
        case spends([ConsumableSpend])
        /// For ``Call/renewalStates(userID:)``.
        case renewalStates([RenewalStateRecord])

        var asDone: Void? { if case .done = self { return () } else { return nil } }
        var asReport: OrderLoadReport? { if case .report(let value) = self { return value } else { return nil } }
        var asOrders: [Order]? { if case .orders(let value) = self { return value } else { return nil } }
        var asOrder: Order?? { if case .order(let value) = self { return .some(value) } else { return nil } }
        var asSpend: ConsumableSpend? { if case .spend(let value) = self { return value } else { return nil } }
        var asSpends: [ConsumableSpend]? { if case .spends(let value) = self { return value } else { return nil } }
        var asRenewalStates: [RenewalStateRecord]? {
            if case .renewalStates(let value) = self { return value } else { return nil }
        }
    }
}

/// A call printed, logged or dumped (the record of calls, a hook's trace, a
/// failed assertion) shows its arguments, but never an order token: the token
/// is a secret, as in ``Payment`` and ``Order``.
extension InterceptingOrderStore.Call: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        let (label, argument) = rendered
        return argument.map { "\(label)(\($0))" } ?? label
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        let (label, argument) = rendered
        return Mirror(self, children: argument.map { [(label: label as String?, value: $0)] } ?? [], displayStyle: .enum)
    }

    private var rendered: (label: String, argument: Any?) {
        switch self {
        case .save(let order): return ("save", order)
        case .loadOpenOrders: return ("loadOpenOrders", nil)
        case .openOrders(let userID): return ("openOrders", "userID: \(userID)")
        case .orders(let userID): return ("orders", "userID: \(userID)")
        case .orderWithID(let id): return ("orderWithID", id)
        case .orderWithTransactionID(let id): return ("orderWithTransactionID", id)
        case .ordersOfPurchase(let id): return ("ordersOfPurchase", "originalTransactionID: \(id)")
        case .orderWithToken: return ("orderWithToken", "<redacted>")
        case .archive(let orderID): return ("archive", "orderID: \(orderID)")
        case .remove(let orderID): return ("remove", "orderID: \(orderID)")
        case .recordSpend(let spend): return ("recordSpend", spend)
        case .spends(let userID): return ("spends", "userID: \(userID)")
        case .saveRenewalState(let record): return ("saveRenewalState", record)
        case .renewalStates(let userID): return ("renewalStates", "userID: \(userID)")
        }
    }
}
