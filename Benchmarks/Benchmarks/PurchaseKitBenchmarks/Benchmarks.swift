import Benchmark

/// Every PurchaseKit benchmark. Run them with
/// `swift package --package-path Benchmarks benchmark` (see the README).
let benchmarks: @Sendable () -> Void = {
    PurchaseBenchmarks.register()
    BreakdownBenchmarks.register()
    DurabilityBenchmarks.register()
    FloorBenchmarks.register()
    RecoveryBenchmarks.register()
    SaveBenchmarks.register()
    ReadBenchmarks.register()
    FaultSimulationBenchmarks.register()
}
