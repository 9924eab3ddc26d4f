import PurchaseKit

/// A verifier that answers `.delivered` at once: the purchase benchmarks
/// measure PurchaseKit and the store, not a network round trip.
public struct AlwaysDeliverVerifier: ReceiptVerifier {
    public init() {}

    public func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
        .delivered
    }
}
