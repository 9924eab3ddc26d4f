import Foundation
import PurchaseKit
import PurchaseKitSimulator

extension Commands {
    static let refund = Command(
        name: "refund", synopsis: "refund TRANSACTION_ID",
        summary: "The store refunds a transaction; the app revokes it.",
        details: "The simulated store refunds TRANSACTION_ID (see `orders`) and reports the\nrevocation; the engine revokes the order and the entitlement goes away.",
        spec: .init()
    ) { arguments, context in
        let transactionID = try arguments.positionals(["TRANSACTION_ID"])[0]
        let world = try await DemoWorld.open(context.paths, terminal: context.terminal)
        try await world.start()
        if await world.store.transaction(id: transactionID)?.isRevoked == true {
            try await world.close()
            throw DemoError(message: "Transaction \(transactionID) was already refunded; the store refunds a transaction once.")
        }
        context.terminal.line("The store refunds transaction \(transactionID):")
        try await world.store.refund(transactionID: transactionID)
        try await world.close()
        return 0
    }

    static let restore = Command(
        name: "restore", synopsis: "restore [--user U] [--json]",
        summary: "Restore the account's non-consumables and subscriptions.",
        details: """
        Asks the store for the account's restorable purchases and delivers them to
        the user, never twice and never to a user another order already holds.
        Says what was delivered, what is still owed (delivery retrying) and what failed.

          --user U          the app's user (default alice)
          --json            print only a JSON object: user, userCancelled,
                            restoredProductIDs, delivered, owed, failures
        """,
        spec: .init(valueOptions: ["user"], flags: ["json"])
    ) { arguments, context in
        _ = try arguments.positionals([])
        let user = arguments.value("user") ?? "alice"
        let json = arguments.has("json")
        let world = try await DemoWorld.open(context.paths, terminal: json ? context.terminal.silenced : context.terminal)
        try await world.start(user: user)
        try await world.backend.noteUser(user)
        world.terminal.line("Restoring purchases for \(user):")
        let result = try await world.engine.restorePurchases(user: user)
        try await world.close()
        if json {
            context.terminal.line(try JSONOutput.text(JSONOutput.RestoreEntry(result)))
            return 0
        }
        let names = result.restoredProductIDs.map(world.printer.name(of:))
        context.terminal.line(names.isEmpty ? "Nothing restored." : "Restored: " + names.joined(separator: ", ") + ".")
        if !result.owed.isEmpty {
            context.terminal.line("Paid, delivery retrying (see `resume`): "
                + result.owed.map { "\($0.id) (\(world.printer.name(of: $0.productID)))" }.joined(separator: ", ") + ".")
        }
        for failure in result.failures {
            context.terminal.line("Not restored: \(world.printer.name(of: failure.productID)) (transaction \(failure.transactionID)): "
                + failure.error.message)
        }
        return 0
    }

    static let renew = Command(
        name: "renew", synopsis: "renew --months N",
        summary: "Advance the simulated clock; subscriptions renew.",
        details: """
        Moves the story's clock forward N months of subscription time (a month is
        thirty days, scaled by the configuration's time rate), one month at a time,
        and lets the store renew subscriptions and the engine deliver the renewals.

          --months N        how many months (1 to 120)
        """,
        spec: .init(valueOptions: ["months"])
    ) { arguments, context in
        _ = try arguments.positionals([])
        guard arguments.value("months") != nil else { throw UsageError(message: "missing --months N", command: "renew") }
        let months = try arguments.positiveInt("months", default: 1, maximum: 120)
        let world = try await DemoWorld.open(context.paths, terminal: context.terminal)
        try await world.start()
        try await world.renew(months: months)
        try await world.close()
        for user in await world.backend.state.users {
            let status = try await world.engine.subscriptionStatus(user: user)
            guard !status.isEmpty else { continue }
            context.terminal.line("\(user): " + status.sorted { $0.key < $1.key }.map { "group \($0.key) \($0.value.rawValue)" }.joined(separator: ", "))
        }
        return 0
    }
}

extension DemoWorld {
    /// Thirty days of subscription time, in clock seconds.
    func monthInClockSeconds() async -> TimeInterval {
        30 * 86_400 / max(1, await backend.state.timeRateFactor)
    }

    /// Advances the clock month by month; each month the store renews and the engine delivers.
    func renew(months: Int) async throws {
        let month = await monthInClockSeconds()
        for index in 1...months {
            try await advanceClock(to: clock.now.addingTimeInterval(month))
            terminal.line(terminal.paint("— month \(index): the clock reads \(clock.now.demoText)", .bold))
            await store.processRenewals()
            await queue.save()
            await settle()
        }
    }
}
