import XCTest
import PurchaseKit
import PurchaseKitSimulator

/// Real configuration files from other projects, read from the folder named by
/// `PURCHASEKIT_STOREKIT_FIXTURES` (CI sets it; the files are not part of this repository).
final class ExternalConfigurationTests: XCTestCase {
    private func folder() throws -> URL {
        guard let path = ProcessInfo.processInfo.environment["PURCHASEKIT_STOREKIT_FIXTURES"], !path.isEmpty else {
            throw XCTSkip("PURCHASEKIT_STOREKIT_FIXTURES is not set: set it to a folder of .storekit files to run this test.")
        }
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    func testEveryFileInTheFolderLoads() throws {
        let folder = try folder()
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "storekit" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        XCTAssertFalse(files.isEmpty, "the folder has no .storekit file")
        for file in files {
            do {
                let configuration = try StoreKitConfiguration(contentsOf: file)
                XCTAssertFalse(configuration.products.isEmpty, file.lastPathComponent)
                for product in configuration.products where product.type == .autoRenewable {
                    XCTAssertNotNil(product.subscription?.period, "\(file.lastPathComponent): \(product.id)")
                }
            } catch {
                XCTFail("\(file.lastPathComponent): \(error)")
            }
        }
    }

    func testAppleSampleConfigurationLoadsAllTenProducts() throws {
        let url = try folder().appendingPathComponent("apple-SKDemo-Products.storekit")
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw XCTSkip("The folder has no apple-SKDemo-Products.storekit.")
        }
        let configuration = try StoreKitConfiguration(contentsOf: url)
        XCTAssertEqual(configuration.products.count, 10)
        let byType = Dictionary(grouping: configuration.products, by: \.type)
        XCTAssertEqual(byType[.nonConsumable]?.count, 3)
        XCTAssertEqual(byType[.consumable]?.count, 3)
        XCTAssertEqual(byType[.nonRenewable]?.count, 1)
        let subscriptions = try XCTUnwrap(byType[.autoRenewable])
        XCTAssertEqual(subscriptions.count, 3)
        XCTAssertTrue(subscriptions.allSatisfy { $0.subscription?.period.iso8601 == "P1M" })
        XCTAssertEqual(subscriptions.filter { $0.subscription?.introductoryOffer != nil }.count, 1)
        XCTAssertEqual(configuration.product(id: "nonconsumable.car")?.price, Decimal(string: "1.99"))
        XCTAssertEqual(configuration.product(id: "consumable.fuel.octane87")?.price, Decimal(string: "0.99"))
        XCTAssertEqual(configuration.product(id: "nonRenewing.standard")?.price, Decimal(string: "9.99"))
        XCTAssertEqual(configuration.product(id: "subscription.standard")?.price, Decimal(string: "2.99"))
        XCTAssertEqual(configuration.product(id: "nonconsumable.car")?.displayName, "Car")
        XCTAssertEqual(configuration.settings.timeRate.rawValue, 15)
    }
}
