import XCTest
@_spi(Testing) import PurchaseKit
@testable import PurchaseKitSimulator

/// A process of the fault simulation that died runs nothing once the app is
/// launched again, as a killed app would not: its engine is shut down.
final class DeadProcessTests: XCTestCase {
    func testTheEngineOfAProcessThatDiedIsShutDownWhenTheAppIsLaunchedAgain() async {
        let (first, relaunched) = await FaultSimulation.onOwnExecutor { starter in
            await WorldIsolation(starter: starter).run { _ -> (String, String) in
                let run = SimulationRun(seed: 7, maximumPurchases: 1, sabotage: .none, rates: FaultPlan.Rates(),
                                        starter: starter, keepsTrace: false)
                await run.launch()
                await run.app.kill.killNow()
                await run.endStep("kill")
                return (await Self.purchaseOutcome(on: run.apps[0].engine),
                        await Self.purchaseOutcome(on: run.apps[1].engine))
            }
        }
        XCTAssertEqual(first, "threw \(PurchaseKitError.Code.engineShutDown)")
        XCTAssertEqual(relaunched, "success")
    }

    func testAProcessStillRunningIsNotShutDown() async {
        let outcome = await FaultSimulation.onOwnExecutor { starter in
            await WorldIsolation(starter: starter).run { _ -> String in
                let run = SimulationRun(seed: 7, maximumPurchases: 1, sabotage: .none, rates: FaultPlan.Rates(),
                                        starter: starter, keepsTrace: false)
                await run.launch()
                await run.endStep("nothing")
                XCTAssertEqual(run.apps.count, 1)
                return await Self.purchaseOutcome(on: run.app.engine)
            }
        }
        XCTAssertEqual(outcome, "success")
    }

    /// How a purchase of coins for the first user ends, in a word.
    private static func purchaseOutcome(on engine: PurchaseEngine) async -> String {
        do {
            let result = try await engine.purchase(productID: SimulationWorld.coins, user: SimulationRun.users[0])
            if case .success = result { return "success" }
            return "\(result)"
        } catch let error as PurchaseKitError {
            return "threw \(error.code)"
        } catch {
            return "threw \(error)"
        }
    }
}
