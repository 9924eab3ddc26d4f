import Foundation
import PurchaseKit

/// What ``SimulatedPaymentQueue/saveState(to:)`` writes: the account's story,
/// so that a new process continues it. Behaviour switches, latency and held
/// updates are a test's script and are not saved.
struct SimulatedStoreState: Codable {
    static let currentVersion = 1

    var version: Int
    var environment: StoreEnvironment
    var signer: ReceiptSigner
    var products: [StoreProduct]
    var settings: StoreKitConfiguration.Settings
    var records: [TransactionRecord]
    var subscriptions: [SubscriptionRecord]
    var pending: [PendingPurchase]
    var billingIssues: [String]
    var nextTransactionNumber: UInt64
    var nextPendingNumber: UInt64
    var paymentsAllowed: Bool
    /// Failed and cancelled payments (absent in files from before they were kept).
    var unpaid: [UnpaidPaymentRecord]?
    var nextUnpaidNumber: UInt64?
    /// Refund requests, offer codes and used offer nonces (absent in files from before they were kept).
    var refundRequests: [RefundRequestRecord]?
    var offerCodes: [OfferCodeRecord]?
    var usedOfferNonces: [UUID]?
}

extension SimulatedPaymentQueue {
    /// Writes the account's story to `url` atomically: every transaction
    /// (finished or not, refunds included), subscriptions, pending Ask to Buy
    /// and interrupted purchases, billing issues, the catalog and settings,
    /// and the id counters. The file holds receipts and order tokens: keep it
    /// with the app's private data.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceWriteFailed``.
    public func saveState(to url: URL) throws(PurchaseKitError) {
        let state = SimulatedStoreState(
            version: SimulatedStoreState.currentVersion, environment: environment, signer: signer,
            products: catalogProducts(), settings: settings, records: records,
            subscriptions: subscriptions.values.sorted { $0.productID < $1.productID }, pending: pending,
            billingIssues: billingIssues.sorted(), nextTransactionNumber: nextTransactionNumber,
            nextPendingNumber: nextPendingNumber, paymentsAllowed: paymentsAllowed, unpaid: unpaid,
            nextUnpaidNumber: nextUnpaidNumber, refundRequests: refundRequests,
            offerCodes: offerCodes.values.sorted { $0.code < $1.code },
            usedOfferNonces: usedOfferNonces.sorted { $0.uuidString < $1.uuidString })
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try encoder.encode(state).write(to: url, options: .atomic)
        } catch {
            throw PurchaseKitError(.persistenceWriteFailed,
                                   "The simulated store could not save its state to '\(url.lastPathComponent)'.",
                                   advice: "Check that the folder exists and is writable.", underlying: error)
        }
    }

    /// Restores a store saved by ``saveState(to:)``. Unfinished transactions
    /// replay to the next observer that attaches, and new transaction ids
    /// continue after the saved ones.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the file
    ///   cannot be read, ``PurchaseKitError/Code/persistenceCorrupt`` (with the
    ///   key path) when it is damaged or from a newer version.
    public static func load(from url: URL, clock: any PurchaseClock, seed: UInt64 = 0) throws(PurchaseKitError) -> SimulatedPaymentQueue {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw PurchaseKitError(.persistenceReadFailed,
                                   "The simulated store state '\(url.lastPathComponent)' could not be read.",
                                   advice: "Check the path; start a new store when there is no saved state.",
                                   underlying: error)
        }
        let state: SimulatedStoreState
        do {
            state = try JSONDecoder().decode(SimulatedStoreState.self, from: data)
        } catch let error as DecodingError {
            throw PurchaseKitError.corrupt(error, what: "the simulated store state")
        } catch {
            throw PurchaseKitError(.persistenceCorrupt, "The simulated store state could not be decoded.",
                                   advice: "Move the file aside and start a new store.", underlying: error)
        }
        guard state.version <= SimulatedStoreState.currentVersion else {
            throw PurchaseKitError(.persistenceCorrupt,
                                   "The simulated store state was written by a newer version (\(state.version)).",
                                   advice: "Update PurchaseKit, or move the file aside.", keyPath: "version")
        }
        return SimulatedPaymentQueue(products: state.products, settings: state.settings, clock: clock, seed: seed,
                                     environment: state.environment, signer: state.signer, restoring: state)
    }
}
