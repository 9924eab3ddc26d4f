import PurchaseKit

extension InterceptingPaymentQueue {
    /// One call to the store, with its arguments.
    public enum Call: Sendable, Hashable {
        /// ``PaymentQueue/products(for:)``.
        case products(Set<String>)
        /// ``PaymentQueue/canMakePayments()``.
        case canMakePayments
        /// ``PaymentQueue/add(_:)``.
        case add(Payment)
        /// ``PaymentQueue/finish(transactionID:)``.
        case finish(transactionID: String)
        /// ``PaymentQueue/restoreCompletedTransactions()``.
        case restoreCompletedTransactions
        /// ``PaymentQueue/attach(_:)``.
        case attach
        /// ``PaymentQueue/revokedTransactions()``.
        case revokedTransactions
        /// ``PaymentQueue/renewalState(forOriginalTransactionID:)``.
        case renewalState(originalTransactionID: String)
        /// ``PaymentQueue/requestRefund(transactionID:)``.
        case requestRefund(transactionID: String)
        /// ``PaymentQueue/isEligibleForIntroOffer(groupID:)``.
        case isEligibleForIntroOffer(groupID: String)

        /// The requirement called, without its arguments.
        public enum Name: String, Sendable, Hashable, CaseIterable {
            /// ``PaymentQueue/products(for:)``.
            case products
            /// ``PaymentQueue/canMakePayments()``.
            case canMakePayments
            /// ``PaymentQueue/add(_:)``.
            case add
            /// ``PaymentQueue/finish(transactionID:)``.
            case finish
            /// ``PaymentQueue/restoreCompletedTransactions()``.
            case restoreCompletedTransactions
            /// ``PaymentQueue/attach(_:)``.
            case attach
            /// ``PaymentQueue/revokedTransactions()``.
            case revokedTransactions
            /// ``PaymentQueue/renewalState(forOriginalTransactionID:)``.
            case renewalState
            /// ``PaymentQueue/requestRefund(transactionID:)``.
            case requestRefund
            /// ``PaymentQueue/isEligibleForIntroOffer(groupID:)``.
            case isEligibleForIntroOffer
        }

        /// The requirement called.
        public var name: Name {
            switch self {
            case .products: return .products
            case .canMakePayments: return .canMakePayments
            case .add: return .add
            case .finish: return .finish
            case .restoreCompletedTransactions: return .restoreCompletedTransactions
            case .attach: return .attach
            case .revokedTransactions: return .revokedTransactions
            case .renewalState: return .renewalState
            case .requestRefund: return .requestRefund
            case .isEligibleForIntroOffer: return .isEligibleForIntroOffer
            }
        }
    }

    /// An answer a hook gives instead of the wrapped store, or the wrapped
    /// store's answer handed to a ``InterceptionDecision/proceedThen(_:)`` hook.
    /// Each call takes one kind.
    public enum Answer: Sendable {
        /// For a call that returns nothing: ``Call/add(_:)``,
        /// ``Call/finish(transactionID:)``, ``Call/attach``. Answering it skips
        /// the call: no payment, no finish, no observer attached.
        case done
        /// For ``Call/products(_:)``.
        case products(ProductsResponse)
        /// For ``Call/canMakePayments``.
        case canMakePayments(Bool)
        /// For ``Call/restoreCompletedTransactions`` and ``Call/revokedTransactions``.
        case transactions([StoreTransaction])
        /// For ``Call/renewalState(originalTransactionID:)``.
        case renewalState(SubscriptionRenewalState?)
        /// For ``Call/requestRefund(transactionID:)``.
        case refund(RefundRequestStatus)
        /// For ``Call/isEligibleForIntroOffer(groupID:)``.
        case introOfferEligibility(Bool?)

        var asDone: Void? { if case .done = self { return () } else { return nil } }
        var asProducts: ProductsResponse? { if case .products(let value) = self { return value } else { return nil } }
        var asCanMakePayments: Bool? { if case .canMakePayments(let value) = self { return value } else { return nil } }
        var asTransactions: [StoreTransaction]? {
            if case .transactions(let value) = self { return value } else { return nil }
        }
        var asRenewalState: SubscriptionRenewalState?? {
            if case .renewalState(let value) = self { return .some(value) } else { return nil }
        }
        var asRefund: RefundRequestStatus? { if case .refund(let value) = self { return value } else { return nil } }
        var asIntroOfferEligibility: Bool?? {
            if case .introOfferEligibility(let value) = self { return .some(value) } else { return nil }
        }
    }
}
