import PurchaseKit

/// A verifier that answers `.delivered` at once: the purchase benchmarks
/// measure PurchaseKit and the store, not a network round trip.
struct AlwaysDeliverVerifier: ReceiptVerifier {
    func verify(_ request: VerificationRequest) async throws -> ReceiptVerdict {
        .delivered
    }
}
