import Foundation
import PurchaseKit

extension StoreKitConfiguration {
    /// A small sample catalog bundled with the simulator, for the example
    /// executable and previews: coins (consumable), premium (non-consumable),
    /// a season pass (non-renewing), and monthly (with a free week) and yearly
    /// subscriptions, at Xcode's "monthly renewal every thirty seconds" rate.
    ///
    /// - Throws: ``PurchaseKitError/Code/invalidConfiguration`` when the bundle
    ///   lacks the file (a packaging error).
    public static func sample(locale: String? = nil) throws(PurchaseKitError) -> StoreKitConfiguration {
        guard let url = Bundle.module.url(forResource: "Sample", withExtension: "storekit") else {
            throw PurchaseKitError(.invalidConfiguration, "The simulator's sample StoreKit configuration is missing.",
                                   advice: "Rebuild the package; the file ships as a resource of PurchaseKitSimulator.")
        }
        return try StoreKitConfiguration(contentsOf: url, locale: locale)
    }
}
