import Foundation
@_spi(Testing) import PurchaseKit
import PurchaseKitSimulator

extension Commands {
    static let tour = Command(
        name: "tour", synopsis: "tour",
        summary: "The narrated tour (what runs with no command).",
        details: """
        A narrated end-to-end story on the simulated store, with the app's orders in
        a journal order store in the state folder: products from the bundled Sample.storekit;
        a consumable, a non-consumable and a subscription bought; a failed payment; a
        verifier outage ridden out with retries; Ask to Buy approved later; a crash
        (a real process exit) and its recovery; a restore; a refund; a few months of
        renewals; then a summary. It starts a new story in the state folder,
        replacing the previous one, so later commands continue the tour's story.
        """,
        spec: .init()
    ) { arguments, context in
        _ = try arguments.positionals([])
        var tour = Tour(context: context)
        try await tour.run()
        return 0
    }
}

/// The tour: chapters, each a step of the story, each printing its timeline.
struct Tour {
    let context: CommandContext
    var chapter = 0
    var terminal: Terminal { context.terminal }

    static let coins = "com.example.purchasekit.coins.100"
    static let premium = "com.example.purchasekit.premium"
    static let monthly = "com.example.purchasekit.plus.monthly"
    static let season = "com.example.purchasekit.season"
    static let user = "alice"

    mutating func heading(_ title: String, _ narration: String) {
        chapter += 1
        terminal.line()
        terminal.line(terminal.paint("\(chapter). \(title)", .bold))
        terminal.line(terminal.paint(narration, .dim))
    }

    /// Removes the previous story's files (only the demo's own), so every tour tells the same story.
    func reset() throws {
        let paths = context.paths
        guard paths.exists else { return }
        for url in [paths.storeFile, paths.backendFile, paths.ordersDirectory]
        where FileManager.default.fileExists(atPath: url.path) {
            try FileManager.default.removeItem(at: url)
        }
    }

    mutating func run() async throws {
        try reset()
        terminal.line(terminal.paint("PurchaseKit tour", .bold) + " — the purchase lifecycle on a simulated App Store.")
        terminal.line("The app's orders live in a journal order store in \(context.paths.root.lastPathComponent)/orders; "
            + "the clock is a manual one that starts on \(ManualClock.defaultStart.demoText) UTC.")
        let first = try await DemoWorld.open(context.paths, terminal: terminal)
        try await firstLaunch(first)
        try await first.close()
        try crash()
        let second = try await DemoWorld.open(context.paths, terminal: terminal)
        try await secondLaunch(second)
        try await second.close()

        heading("Summary", "What each user owns, consumables delivered, and what is still open.")
        try await Summary(world: second).printAll()
        terminal.line()
        terminal.line("The story stays in \(context.paths.root.lastPathComponent); continue it with, for example:")
        terminal.line("  purchasekit-demo orders        purchasekit-demo entitlements    purchasekit-demo renew --months 2")
        terminal.line("  purchasekit-demo buy \(Self.coins) --scenario verifier-down   then   purchasekit-demo resume")
    }

    // MARK: Chapters

    private mutating func firstLaunch(_ world: DemoWorld) async throws {
        heading("Products", "Loaded from the bundled Sample.storekit, as Xcode writes it.")
        ProductTable.print(world.products, terminal: terminal)
        heading("Launch", "The app starts the engine before any UI: it loads saved orders and attaches to the store.")
        try await world.start(user: Self.user)
        terminal.line("Nothing to recover on a first launch.")

        heading("A consumable", "100 coins: paid, verified by the server, delivered, then the transaction is finished.")
        try await buy(Self.coins, in: world)
        heading("A non-consumable", "Premium, kept forever and restorable.")
        try await buy(Self.premium, in: world)

        heading("A failed payment", "The store refuses the payment (this account may not buy). Nothing is charged; the transaction is finished at once.")
        await world.store.scriptNextPurchase(.fail(.paymentNotAllowed))
        try await buy(Self.coins, in: world)

        heading("A verifier outage", "The server answers 503 three times. The paid order is kept, the transaction stays unfinished, "
            + "and delivery is retried with backoff until the server is back.")
        await world.server.failNext(3, with: .serverError(statusCode: 503))
        if let order = try await buy(Self.coins, in: world) {
            while let next = await world.engine.scheduledRetries[order.id] {
                terminal.line(terminal.paint("  … the clock moves on to \(next.demoText)", .dim))
                try await world.advanceClock(to: next)
                await world.timeline.wait { event in
                    switch event {
                    case .retryScheduled(let changed, _): return changed.id == order.id
                    case .orderChanged(let changed, _): return changed.id == order.id && (changed.status.isArchivable || changed.status == .needsAttention)
                    default: return false
                    }
                }
                await world.settle()
            }
        }

        heading("A subscription", "Plus Monthly, with a free first week; the store renews it every month.")
        try await buy(Self.monthly, in: world)

        heading("Ask to Buy", "The account needs a parent's approval for the Season Pass (Ask to Buy). The order waits and grants nothing…")
        await world.store.scriptNextPurchase(.askToBuy)
        if let order = try await buy(Self.season, in: world), let token = order.token {
            terminal.line("…until a parent approves it later. No purchase call waits any more; the engine delivers it anyway:")
            try await world.store.approveAskToBuy(orderToken: token)
            await world.settle()
        }
    }

    /// Runs `buy --crash-after purchased` as a separate process: a real, abrupt exit.
    private mutating func crash() throws {
        heading("A crash", "Another purchase; the app is killed right after the paid order is saved, before the server "
            + "confirms the delivery. This runs as a separate process that really exits:")
        Terminal.flush()
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["buy", Self.coins, "--user", Self.user, "--crash-after", "purchased",
                             "--state-dir", context.paths.root.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == DemoWorld.crashExitCode else {
            throw DemoError(message: "The crashing purchase ended with status \(process.terminationStatus), not the simulated crash.")
        }
        terminal.line("The process died (exit status \(process.terminationStatus)). The user paid; the store still holds the transaction, unfinished.")
    }

    private mutating func secondLaunch(_ world: DemoWorld) async throws {
        heading("Recovery", "The app launches again. The saved order is owed a delivery: the engine delivers it, once, and finishes the transaction.")
        try await world.start(user: Self.user)

        heading("Restore", "The user taps Restore Purchases: non-consumables and subscriptions come back, nothing is credited twice.")
        let restored = try await world.engine.restorePurchases(user: Self.user)
        await world.settle()
        terminal.line("Restored: " + restored.restoredProductIDs.map(world.printer.name(of:)).joined(separator: ", "))

        heading("A refund", "The store refunds Premium. The engine revokes the order; the entitlement goes away.")
        let premium = try await world.orderStore.orders(forUser: Self.user).first { $0.productID == Self.premium }
        if let transactionID = premium?.transactionID {
            try await world.store.refund(transactionID: transactionID)
            await world.settle()
        }

        heading("Renewals", "Three months pass on the simulated calendar. Each renewal is a new transaction, delivered to the subscriber. "
            + "Sample.storekit sets Xcode's time rate \"monthly renewal every thirty seconds\", so a month takes 30 s of the clock.")
        try await world.renew(months: 3)
    }

    /// Buys and prints the outcome; a failure is narrated, not thrown.
    @discardableResult
    private func buy(_ productID: String, in world: DemoWorld) async throws -> Order? {
        do {
            let result = try await world.engine.purchase(productID: productID, user: Self.user)
            await world.settle()
            terminal.line(world.describe(result))
            return result.order
        } catch let error as PurchaseKitError {
            await world.settle()
            terminal.line(terminal.paint("✘ \(error.message) \(error.advice)", .red))
            return nil
        }
    }
}
