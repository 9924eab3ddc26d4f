/// Completion-handler variants of the engine's calls, for code without async
/// (UIKit view controllers, Objective-C bridges). Each starts the async call
/// and calls `completion` once, on the main actor (the main thread), with its
/// result; a thrown error arrives as `.failure`. Calls made one after the
/// other may complete in another order, as the async calls would.
extension PurchaseEngine {
    /// ``purchase(productID:user:quantity:metadata:promotionalOffer:)`` with a completion
    /// handler called on the main actor.
    public nonisolated func purchase(
        productID: String, user userID: String, quantity: Int = 1, metadata: [String: String] = [:],
        completion: @escaping @MainActor @Sendable (Result<PurchaseResult, PurchaseKitError>) -> Void
    ) {
        callBack(completion, failure: (.paymentFailed, "The purchase failed.")) { engine in
            try await engine.purchase(productID: productID, user: userID, quantity: quantity, metadata: metadata)
        }
    }

    /// ``restorePurchases(user:)`` with a completion handler called on the main actor.
    public nonisolated func restorePurchases(
        user userID: String, completion: @escaping @MainActor @Sendable (Result<RestoreResult, PurchaseKitError>) -> Void
    ) {
        callBack(completion, failure: (.restoreFailed, "The restore failed.")) { engine in
            try await engine.restorePurchases(user: userID)
        }
    }

    /// ``products(for:refresh:)`` with a completion handler called on the main actor.
    public nonisolated func products(
        for identifiers: Set<String>, refresh: Bool = false,
        completion: @escaping @MainActor @Sendable (Result<ProductList, PurchaseKitError>) -> Void
    ) {
        callBack(completion, failure: (.productRequestFailed, "The products could not be loaded.")) { engine in
            try await engine.products(for: identifiers, refresh: refresh)
        }
    }

    /// Runs `call` as a task of its own and hands its result to `completion` on the main actor.
    nonisolated func callBack<T: Sendable>(
        _ completion: @escaping @MainActor @Sendable (Result<T, PurchaseKitError>) -> Void,
        failure: (code: PurchaseKitError.Code, message: String),
        _ call: @escaping @Sendable (PurchaseEngine) async throws -> T
    ) {
        configuration.taskStarter.start {
            let result: Result<T, PurchaseKitError>
            do {
                result = .success(try await call(self))
            } catch {
                result = .failure(PurchaseKitError.wrap(error, as: failure.code, failure.message, advice: "Try again later."))
            }
            await completion(result)
        }
    }
}
