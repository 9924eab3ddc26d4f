import Foundation
import PurchaseKit

extension Commands {
    static let entitlements = Command(
        name: "entitlements", synopsis: "entitlements [--user U] [--json]",
        summary: "Show what users own: entitlements, consumables, subscriptions.",
        details: """
        Reads the saved orders (the engine is not started, so nothing is recovered).

          --user U          one user (default: every user of the story)
          --json            print a JSON array of {user, entitlements, consumables, subscriptions}
        """,
        spec: .init(valueOptions: ["user"], flags: ["json"])
    ) { arguments, context in
        _ = try arguments.positionals([])
        guard context.paths.exists else {
            context.terminal.line(arguments.has("json") ? "[]" : "No story yet in \(context.paths.root.path).")
            return 0
        }
        let world = try await DemoWorld.open(context.paths, terminal: context.terminal)
        let summary = Summary(world: world)
        var entries: [JSONOutput.UserEntry] = []
        for user in await summary.users(arguments.value("user")) {
            entries.append(try await summary.entry(for: user))
        }
        await world.queue.save()
        if arguments.has("json") {
            context.terminal.line(try JSONOutput.text(entries))
        } else {
            entries.forEach(summary.printUser)
        }
        return 0
    }

    static let orders = Command(
        name: "orders", synopsis: "orders [--json]",
        summary: "List every order of the story, open and archived.",
        details: """
        Reads the saved orders as they are on disk (the engine is not started, so
        after a crash this shows what was left, before any recovery).

          --json            print a JSON array: id, productID, userID, status,
                            transactionID, source, quantity, finished,
                            storeTransactionFinished, credited, open, ...
        """,
        spec: .init(flags: ["json"])
    ) { arguments, context in
        _ = try arguments.positionals([])
        guard context.paths.exists else {
            context.terminal.line(arguments.has("json") ? "[]" : "No story yet in \(context.paths.root.path).")
            return 0
        }
        let world = try await DemoWorld.open(context.paths, terminal: context.terminal)
        let open = Set(try await world.orderStore.loadOpenOrders().orders.map(\.id))
        var entries: [JSONOutput.OrderEntry] = []
        for order in try await world.allOrders() {
            var storeFinished: Bool?
            var credited = false
            if let transactionID = order.transactionID {
                storeFinished = await world.store.isFinished(transactionID: transactionID)
                credited = await world.backend.credit(transactionID: transactionID)?.orderID == order.id
            }
            entries.append(JSONOutput.OrderEntry(
                id: order.id, productID: order.productID, userID: order.userID, status: order.status.rawValue,
                transactionID: order.transactionID, source: order.source.rawValue, quantity: order.quantity,
                createdAt: order.createdAt, updatedAt: order.updatedAt, verificationAttempts: order.verificationAttempts,
                finished: order.isFinished, storeTransactionFinished: storeFinished, credited: credited,
                open: open.contains(order.id), hint: order.hint))
        }
        if arguments.has("json") {
            context.terminal.line(try JSONOutput.text(entries))
            return 0
        }
        if entries.isEmpty { context.terminal.line("No orders yet.") }
        let terminal = context.terminal
        for entry in entries {
            var line = terminal.paint(entry.id.padded(22), .cyan) + world.printer.name(of: entry.productID).padded(16)
                + entry.userID.padded(8) + world.printer.status(OrderStatus(rawValue: entry.status) ?? .created).padded(terminal.colors ? 24 : 15)
            if let transactionID = entry.transactionID {
                line += "transaction \(transactionID)" + (entry.storeTransactionFinished == true ? " finished" : terminal.paint(" unfinished", .yellow))
            }
            line += terminal.paint("  \(entry.source)" + (entry.open ? ", open" : ""), .dim)
            terminal.line(line)
        }
        return 0
    }
}
