// swift-tools-version:6.1
import PackageDescription

// The root package uses the Swift toolchain alone: no package dependencies.
// Development tooling that needs packages (benchmarks) lives in its own
// sub-package that depends on this one by path.
// A nonisolated async function runs where it is called from, as Swift 6.2
// proposes (SE-0461), instead of hopping to the global executor and back: a
// call from the engine into the order store or the payment queue then costs
// no switch of executor. Compilers before 6.2 ignore the setting and hop.
let callerIsolation: [SwiftSetting] = [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let package = Package(
    name: "PurchaseKit",
    platforms: [
        .iOS(.v15),
        .macOS(.v12),
        .tvOS(.v15),
        .watchOS(.v8),
    ],
    products: [
        .library(name: "PurchaseKit", targets: ["PurchaseKit"]),
        .library(name: "PurchaseKitSimulator", targets: ["PurchaseKitSimulator"]),
        .library(name: "PurchaseKitStoreKit", targets: ["PurchaseKitStoreKit"]),
        .executable(name: "purchasekit-demo", targets: ["purchasekit-demo"]),
    ],
    targets: [
        .target(name: "PurchaseKit", swiftSettings: callerIsolation),
        .target(
            name: "PurchaseKitSimulator",
            dependencies: ["PurchaseKit"],
            resources: [.copy("Resources/Sample.storekit")],
            swiftSettings: callerIsolation
        ),
        // The App Store adapter. Where StoreKit is absent (Linux), its StoreKit
        // code compiles against StoreKitInterface, a transcription of the part
        // of Apple's StoreKit 2 interface it calls; where StoreKit exists,
        // StoreKitInterface is empty.
        .target(
            name: "PurchaseKitStoreKit",
            dependencies: ["PurchaseKit", "StoreKitInterface"]
        ),
        .target(name: "StoreKitInterface"),
        .executableTarget(
            name: "purchasekit-demo",
            dependencies: ["PurchaseKit", "PurchaseKitSimulator"]
        ),
        .testTarget(
            name: "PurchaseKitTests",
            // PurchaseKitStoreKit for the guide's samples, which the suite compiles.
            dependencies: ["PurchaseKit", "PurchaseKitSimulator", "PurchaseKitStoreKit"]
        ),
        // Runs the built purchasekit-demo as a user would; depending on the
        // executable target makes SwiftPM build it before the tests.
        .testTarget(
            name: "PurchaseKitDemoTests",
            dependencies: ["purchasekit-demo", "PurchaseKit"],
            resources: [.copy("Fixtures")]
        ),
        // The adapter's mapping, and the adapter over the scripted App Store
        // behind StoreKitInterface, driven by a real engine.
        .testTarget(
            name: "PurchaseKitStoreKitTests",
            dependencies: ["PurchaseKitStoreKit", "StoreKitInterface", "PurchaseKit", "PurchaseKitSimulator"]
        ),
        .testTarget(
            name: "PurchaseKitSimulatorTests",
            dependencies: ["PurchaseKit", "PurchaseKitSimulator"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
