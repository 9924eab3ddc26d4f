import Foundation

extension PurchaseKitError {
    /// A move the transition table forbids.
    public static func invalidTransition(from: OrderStatus, to: OrderStatus, orderID: String?) -> PurchaseKitError {
        let subject = orderID.map { "Order '\($0)'" } ?? "An order"
        var error = PurchaseKitError(
            .invalidTransition,
            "\(subject) cannot move from \(from.rawValue) to \(to.rawValue).",
            advice: "Nothing was changed. This usually means a late or duplicate store update; if it repeats, report it with the order id.",
            orderID: orderID)
        error.fromStatus = from
        error.toStatus = to
        return error
    }

    /// Product identifiers the store does not know.
    public static func invalidProductIdentifiers(_ ids: [String]) -> PurchaseKitError {
        var error = PurchaseKitError(
            .invalidProductIdentifiers,
            "The store does not know \(ids.count == 1 ? "the product" : "\(ids.count) products"): \(ids.sorted().joined(separator: ", ")).",
            advice: "Check the identifiers against App Store Connect (or the StoreKit configuration file) and that the products are cleared for sale.")
        error.productIDs = ids.sorted()
        return error
    }

    /// A payment the store refused.
    public static func paymentFailed(_ reason: StoreFailureReason, orderID: String?, underlying: (any Error & Sendable)? = nil) -> PurchaseKitError {
        var error = PurchaseKitError(
            .paymentFailed,
            "The store refused the payment: \(reason.explanation)",
            advice: reason.advice,
            underlying: underlying,
            orderID: orderID)
        error.storeReason = reason
        return error
    }

    /// A decoding failure turned into a typed error naming the key path at fault.
    /// Values are never copied into the message.
    public static func corrupt(_ error: DecodingError, what: String, code: Code = .persistenceCorrupt) -> PurchaseKitError {
        let path: [any CodingKey]
        let problem: String
        switch error {
        case .typeMismatch(let type, let context):
            path = context.codingPath
            problem = "expected a value of type \(type)"
        case .valueNotFound(let type, let context):
            path = context.codingPath
            problem = "a value of type \(type) is missing"
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
            problem = "the key is missing"
        case .dataCorrupted(let context):
            path = context.codingPath
            problem = context.debugDescription.contains("schema version")
                ? context.debugDescription : "the data is not valid"
        @unknown default:
            path = []
            problem = "the data could not be decoded"
        }
        let keyPath = Self.render(path)
        return PurchaseKitError(
            code,
            "\(what.prefix(1).uppercased() + what.dropFirst()) could not be read at \(keyPath.isEmpty ? "the top level" : "'\(keyPath)'"): \(problem).",
            advice: code == .persistenceCorrupt
                ? "Move the damaged document aside; other orders are unaffected."
                : "Fix the value at that key path.",
            underlying: error,
            keyPath: keyPath)
    }

    /// Renders a coding path as `a.b[2].c`.
    static func render(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}

extension PurchaseKitError {
    /// Passes a `PurchaseKitError` through unchanged and wraps anything else
    /// under `code`, keeping it as the underlying error.
    public static func wrap(_ error: any Error, as code: Code, _ message: String, advice: String, orderID: String? = nil) -> PurchaseKitError {
        if let error = error as? PurchaseKitError { return error }
        return PurchaseKitError(code, message, advice: advice, underlying: error, orderID: orderID)
    }

    /// A purchase call whose task was cancelled while it waited.
    static func callCancelled(orderID: String) -> PurchaseKitError {
        PurchaseKitError(.cancelled, "The purchase call for order '\(orderID)' was cancelled while it waited.",
                         advice: "Nothing is lost: if the store took the payment, the order carries on and its result arrives as events.",
                         orderID: orderID)
    }

    /// A purchase call whose task was cancelled before its order was made.
    static func callCancelledBeforeOrder() -> PurchaseKitError {
        PurchaseKitError(.cancelled, "The purchase call was cancelled before its order was made.",
                         advice: "Nothing was charged and no order was made; the user can buy again.")
    }

    /// A call given an empty user id: `call` is what was called ("A purchase").
    static func emptyUserID(_ call: String, advice: String = "Pass the id of the logged-in user, or a stable anonymous id.")
        -> PurchaseKitError {
        PurchaseKitError(.invalidConfiguration, "\(call) needs a user id; got an empty one.", advice: advice, keyPath: "user")
    }
}
