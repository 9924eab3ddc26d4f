import Foundation
import PurchaseKit

/// An Xcode StoreKit configuration file (`.storekit`), read into PurchaseKit's model.
///
/// Reads the JSON Xcode writes, format versions 1 to 5: `products`,
/// `nonRenewingSubscriptions`, `subscriptionGroups[].subscriptions` and
/// `settings`; per subscription its introductory offer, its other offers
/// (`adHocOffers` as promotional offers, `codeOffers`, `winbackOffers`) and
/// its group's `name`. Keys this reader does not use (app policies, billing
/// plans, internal ids) are ignored, so newer files load as long as the keys
/// it needs keep their meaning.
public struct StoreKitConfiguration: Sendable, Hashable {
    /// The `version` object of the file (`major` 1 to 5 so far); zero when absent.
    public var formatVersion: (major: Int, minor: Int) {
        (formatMajor, formatMinor)
    }

    private var formatMajor: Int
    private var formatMinor: Int

    /// The file's `identifier`, when it has one.
    public var identifier: String?

    /// Every product of the file, sorted by id: in-app purchases,
    /// non-renewing subscriptions, then auto-renewable subscriptions of every group.
    public var products: [StoreProduct]

    /// The file's `settings`.
    public var settings: Settings

    /// Reads a configuration from the file's bytes.
    ///
    /// - Parameters:
    ///   - data: The JSON of a `.storekit` file.
    ///   - locale: The locale whose `localizations` entry names the products,
    ///     such as `en_GB`. When nil, the file's `_locale` setting is used.
    ///     Without an exact match the language alone is tried, then the first entry.
    /// - Throws: ``PurchaseKitError`` with code ``PurchaseKitError/Code/invalidConfiguration``
    ///   and ``PurchaseKitError/keyPath`` naming the key at fault, such as `products[2].type`.
    public init(data: Data, locale: String? = nil) throws(PurchaseKitError) {
        let file: ConfigurationFile
        do {
            file = try JSONDecoder().decode(ConfigurationFile.self, from: data)
        } catch let error as DecodingError {
            throw PurchaseKitError.corrupt(error, what: "the StoreKit configuration", code: .invalidConfiguration)
        } catch {
            throw PurchaseKitError(
                .invalidConfiguration, "The StoreKit configuration could not be read.",
                advice: "Check that the file is a StoreKit configuration written by Xcode.",
                underlying: error)
        }
        let settings = Settings(file.settings)
        let chosenLocale = locale ?? settings.locale
        let currency = Settings.currencyCode(forStorefront: settings.storefront)
        var products: [StoreProduct] = []
        for entry in file.products ?? [] {
            products.append(entry.product(locale: chosenLocale, currencyCode: currency, group: nil))
        }
        for entry in file.nonRenewingSubscriptions ?? [] {
            products.append(entry.product(locale: chosenLocale, currencyCode: currency, group: nil))
        }
        for group in file.subscriptionGroups ?? [] {
            for entry in group.subscriptions ?? [] {
                products.append(entry.product(locale: chosenLocale, currencyCode: currency, group: group))
            }
        }
        var seen: Set<String> = []
        for product in products where !seen.insert(product.id).inserted {
            throw PurchaseKitError(
                .invalidConfiguration, "The StoreKit configuration lists the product '\(product.id)' twice.",
                advice: "Give every product a unique productID.", keyPath: "productID")
        }
        self.formatMajor = file.version?.major ?? 0
        self.formatMinor = file.version?.minor ?? 0
        self.identifier = file.identifier
        self.products = products.sorted { $0.id < $1.id }
        self.settings = settings
    }

    /// Reads a configuration file from disk.
    ///
    /// - Throws: ``PurchaseKitError/Code/invalidConfiguration`` when the file
    ///   cannot be read or is malformed (with the key path at fault).
    public init(contentsOf url: URL, locale: String? = nil) throws(PurchaseKitError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw PurchaseKitError(
                .invalidConfiguration, "The StoreKit configuration '\(url.lastPathComponent)' could not be opened.",
                advice: "Check the file's path and permissions.", underlying: error)
        }
        try self.init(data: data, locale: locale)
    }

    /// Creates a configuration in code, for tests and previews.
    public init(products: [StoreProduct], settings: Settings = Settings()) {
        self.formatMajor = 0
        self.formatMinor = 0
        self.identifier = nil
        self.products = products.sorted { $0.id < $1.id }
        self.settings = settings
    }

    /// The product with this id, if the file has it.
    public func product(id: String) -> StoreProduct? {
        products.first { $0.id == id }
    }

    public static func == (lhs: StoreKitConfiguration, rhs: StoreKitConfiguration) -> Bool {
        lhs.formatMajor == rhs.formatMajor && lhs.formatMinor == rhs.formatMinor
            && lhs.identifier == rhs.identifier && lhs.products == rhs.products && lhs.settings == rhs.settings
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
        hasher.combine(products)
    }
}
