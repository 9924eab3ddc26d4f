// swift-tools-version:6.1
import PackageDescription

// The benchmarks live in their own package so that the root package keeps no
// dependencies: this one depends on PurchaseKit by path, on package-benchmark,
// and on GRDB for the SQLite baseline.
let package = Package(
    name: "PurchaseKitBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "PurchaseKit", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "PurchaseKitBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "PurchaseKit", package: "PurchaseKit"),
                .product(name: "PurchaseKitSimulator", package: "PurchaseKit"),
                .product(name: "GRDB", package: "GRDB.swift"),
                "PurchaseRigs",
            ],
            path: "Benchmarks/PurchaseKitBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // What the benchmarks and the profiling tool share: the engine they
        // run, the product they buy, the minimal payment queue.
        .target(
            name: "PurchaseRigs",
            dependencies: [
                .product(name: "PurchaseKit", package: "PurchaseKit"),
                .product(name: "PurchaseKitSimulator", package: "PurchaseKit"),
            ]
        ),
        // A round of purchases in a plain process, for valgrind and profilers
        // (profile-instructions.sh).
        .executableTarget(
            name: "purchase-profile",
            dependencies: ["PurchaseRigs", .product(name: "PurchaseKit", package: "PurchaseKit")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
