import Foundation
import PurchaseKit
import PurchaseKitSimulator

extension Commands {
    static let products = Command(
        name: "products", synopsis: "products [--config FILE.storekit] [--json]",
        summary: "List the products on sale.",
        details: """
        Lists the products of a StoreKit configuration file (--config), else those of
        the story in the state folder, else those of the bundled Sample.storekit.

          --config FILE     a .storekit file written by Xcode
          --json            print a JSON array: id, type (consumable, nonConsumable,
                            autoRenewable, nonRenewable), displayName, description, price,
                            displayPrice, currencyCode, period (subscriptions), ...
        """,
        spec: .init(valueOptions: ["config"], flags: ["json"])
    ) { arguments, context in
        _ = try arguments.positionals([])
        let products: [StoreProduct]
        let source: String
        if let path = arguments.value("config") {
            products = try StoreKitConfiguration(contentsOf: URL(fileURLWithPath: path)).products
            source = URL(fileURLWithPath: path).lastPathComponent
        } else if FileManager.default.fileExists(atPath: context.paths.storeFile.path) {
            products = try await SimulatedPaymentQueue.load(from: context.paths.storeFile, clock: ManualClock()).catalogProducts()
            source = "the story in \(context.paths.root.lastPathComponent)"
        } else {
            products = try StoreKitConfiguration.sample().products
            source = "Sample.storekit"
        }
        if arguments.has("json") {
            context.terminal.line(try JSONOutput.text(products.map(JSONOutput.ProductEntry.init)))
        } else {
            context.terminal.line("Products of \(source):")
            ProductTable.print(products, terminal: context.terminal)
        }
        return 0
    }
}

enum ProductTable {
    static func print(_ products: [StoreProduct], terminal: Terminal) {
        let width = (products.map(\.id.count).max() ?? 0) + 2
        for product in products {
            var line = "  " + terminal.paint(product.id.padded(width), .cyan) + product.type.rawValue.padded(15)
                + "\(product.displayPrice) \(product.currencyCode)".padded(12) + product.displayName
            if let period = product.subscription?.period { line += ", every \(period.iso8601)" }
            if let offer = product.subscription?.introductoryOffer {
                line += terminal.paint(" (intro: \(offer.paymentMode.rawValue) \(offer.period.iso8601))", .dim)
            }
            terminal.line(line)
        }
    }
}
